"""Definitions shared by tables and figures, each written once."""

import math

ALIGNED_OVERLAP2 = 0.1
"""A Hessian eigenvector counts as aligned with the hard subspace when its overlap² with it is at
least this."""


def negative_aligned(eigenvalue, overlap2):
    """True where an eigenvalue is negative and its eigenvector aligned (overlap² ≥ 0.1): the
    outlier that lets GD escape.  Works elementwise on arrays."""
    return (eigenvalue < 0) & (overlap2 >= ALIGNED_OVERLAP2)


def allowed_gap(error, tolerance):
    """The largest |value − target| that still agrees: max(2σ, tolerance), with σ = ``error``; a
    missing σ (None or NaN, as for an exact number) counts as 0."""
    sigma = error if error is not None and math.isfinite(error) else 0.0
    return max(2 * sigma, tolerance)


def agrees(value, error, target, tolerance):
    """The verdict rule: a value ± σ (``error``) agrees with ``target`` when

        |value − target| ≤ max(2σ, tolerance)                                  (:func:`allowed_gap`)

    that is, within two standard errors, but never required closer than the tolerance.  A missing
    value (None or NaN) agrees with nothing."""
    if value is None or not math.isfinite(value):
        return False
    return bool(abs(value - target) <= allowed_gap(error, tolerance))
