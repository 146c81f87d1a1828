"""featlearn: phase transitions for feature learning in two-layer networks (Montanari & Wang, 2026)."""

__version__ = "0.1.0"
