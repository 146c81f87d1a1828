"""The GD engine: the fused numba kernel, full-batch GD with recording, and seeded trials/cells
(the phase-diagram sweeps, the convention scans and the escape runs).  Theory: docs/model.md; the
escape runs: docs/escape.md."""
