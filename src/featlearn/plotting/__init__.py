"""Figures, drawn from stored results only."""
