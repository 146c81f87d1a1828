"""The GD engine: the fused numba kernel, full-batch GD with recording, and seeded trials/cells."""
