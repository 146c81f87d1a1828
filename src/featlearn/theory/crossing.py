"""Where a margin M(δ) first turns negative along increasing δ: the threshold δ_NN of the outlier
equations (docs/outlier.md, eqs. (O9) and (O14)), and any other first crossing of a level on a δ grid.

* :func:`first_crossing`: on a grid of δ, the first sign change interpolated linearly.  Used where
  each margin costs a whole solve at every δ (δ_NN(t) from the DMFT, the success fraction of a scan).
* :func:`first_root`: the first sign change of a scan refined by Brent's method to ``xtol``, for a
  margin that can be evaluated at any δ.  δ_NN(∞) of the static fixed point is found this way, by
  the theory models' fixed-point jobs and by the designer alike (``theory.delta_nn.FixedPointMargin``).

Statuses: ``ok``; ``none`` (the margin is finite and ≥ 0 on the whole scan: the threshold lies
above it, or there is none); negative already at the smallest δ: ``below_grid`` for the grid
crossing, which returns that δ (an upper bound), ``below_bracket`` for the refined root (NaN);
``unsolved`` (:func:`first_root` only: a margin is NaN where the crossing could lie).
"""

import numpy as np
from scipy import optimize


def first_negative(deltas, margins):
    """(δ ascending, the margins in that order, the order (``argsort`` of ``deltas``), the position in
    it of the first negative margin, or None where no margin is negative)."""
    order = np.argsort(deltas)
    d, m = np.asarray(deltas, float)[order], np.asarray(margins, float)[order]
    negative = np.nonzero(m < 0)[0]
    return d, m, order, int(negative[0]) if negative.size else None


def first_crossing(deltas, margins):
    """(δ, status): the first zero of the margin along increasing δ, by linear interpolation
    (module docstring; NaN for ``none``)."""
    d, m, _, i = first_negative(deltas, margins)
    if i is None:
        return np.nan, "none"
    if i == 0:
        return float(d[0]), "below_grid"
    return float(d[i - 1] + (d[i] - d[i - 1]) * m[i - 1] / (m[i - 1] - m[i])), "ok"


def first_root(margin, deltas, margins, xtol=1e-4):
    """(δ, status): the first zero along increasing δ of ``margin`` (a function of δ), bracketed by
    the first sign change of the scan (``deltas``, ``margins``: any order) and refined by Brent's
    method to ``xtol``.  NaN unless "ok" (module docstring)."""
    d, m, _, i = first_negative(deltas, margins)
    if i is None:
        return np.nan, "none" if np.isfinite(m).all() else "unsolved"
    if i == 0:
        return np.nan, "below_bracket"
    if not np.isfinite(m[i - 1]):
        return np.nan, "unsolved"
    try:
        return float(optimize.brentq(margin, d[i - 1], d[i], xtol=xtol)), "ok"
    except ValueError:  # a margin inside the bracket was NaN (its solve failed)
        return np.nan, "unsolved"
