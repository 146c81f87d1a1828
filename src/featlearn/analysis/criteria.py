"""Definitions shared by tables and figures, each written once."""

import math

import numpy as np

Z95 = 1.959963984540054
"""The 97.5 % normal quantile: a 95 % two-sided interval's half-width is Z95 σ."""

ALIGNED_OVERLAP2 = 0.1
"""A Hessian eigenvector counts as aligned with the hard subspace when its overlap² with it is at
least this."""


def finite_median(values):
    """The median of the finite ``values`` (NaN when none is)."""
    values = [float(v) for v in values if math.isfinite(v)]
    return float(np.median(values)) if values else math.nan


def negative_aligned(eigenvalue, overlap2):
    """True where an eigenvalue is negative and its eigenvector aligned (overlap² ≥ 0.1): the
    outlier that lets GD escape.  Works elementwise on arrays."""
    return (eigenvalue < 0) & (overlap2 >= ALIGNED_OVERLAP2)


def half_width(value, error, target, interval=None):
    """How far ``target`` may lie from a measured ``value`` on its side: from the 95 % profile interval
    (low, high) of the measurement, high − value when the target is above, value − low below; 2σ
    (σ = ``error``) where no interval is given or that side is open (NaN); a missing σ counts as 0."""
    if interval is not None:
        side = interval[1] - value if target > value else value - interval[0]
        if math.isfinite(side):
            return side
    return 2 * error if error is not None and math.isfinite(error) else 0.0


def allowed_gap(error, tolerance, value=None, target=None, interval=None):
    """The largest |value − target| that still agrees: max(half-width, tolerance) (``half_width``:
    2σ, or the profile interval's side when ``interval`` is given)."""
    return max(half_width(value, error, target, interval), tolerance)


def agrees(value, error, target, tolerance, interval=None):
    """The verdict rule: a value ± σ (``error``) agrees with ``target`` when

        |value − target| ≤ max(2σ, tolerance)                                  (:func:`allowed_gap`)

    that is, within two standard errors (or inside the 95 % profile ``interval`` (low, high) when one
    is given), but never required closer than the tolerance.  A missing value (None or NaN) agrees
    with nothing."""
    if value is None or not math.isfinite(value):
        return False
    return bool(abs(value - target) <= allowed_gap(error, tolerance, value, target, interval))
