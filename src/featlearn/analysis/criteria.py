"""Definitions shared by tables and figures, each written once."""

ALIGNED_OVERLAP2 = 0.1
"""A Hessian eigenvector counts as aligned with the hard subspace when its overlap² with it is at
least this."""


def negative_aligned(eigenvalue, overlap2):
    """True where an eigenvalue is negative and its eigenvector aligned (overlap² ≥ 0.1): the
    outlier that lets GD escape.  Works elementwise on arrays."""
    return (eigenvalue < 0) & (overlap2 >= ALIGNED_OVERLAP2)
