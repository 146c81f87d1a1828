"""E[g² | y] of a noiseless single-index target y = h(g), g ~ N(0, 1), from the preimages of y
(docs/spectral.md, eq. (S1a)).

On each monotone piece p of h the change of variables y = h(g) gives g the density
φ(g_p(y))/|h′(g_p(y))| at its preimage g_p(y), so

    M(y) = E[g² | y] = Σ_p g_p(y)² φ(g_p)/|h′(g_p)|  /  Σ_p φ(g_p)/|h′(g_p)|.        (S1a)

The pieces are the maximal runs of a uniform grid on [−``HALF_WIDTH``, ``HALF_WIDTH``] on which h′
keeps a sign; a sign change between two grid points is located by bisection of h′, so a piece ends
at the extremum itself.  Each preimage is found by ``BISECTIONS`` bisections of h − y in the grid
cell that brackets it (an error of 2·HALF_WIDTH/(POINTS − 1)/2^BISECTIONS).  A y outside the range of
every piece (round-off at an extremum, or beyond the grid) takes the grid point whose h is nearest.

A link constant on an interval gives y an atom there (M at the atom is a conditional mean over the
interval): such links are refused (in [−``FLAT_RANGE``, ``FLAT_RANGE``]; further out h′ may
underflow).  For an even link whose |g| ↦ h is injective, the two preimages ±|g| have equal weights
and M(y) = g², the closed form of he2, square, abs and bump.
"""

import numpy as np

HALF_WIDTH = 28.0
"""Covers every node of the 200-node Gauss–Hermite rule of the spectral method (largest 27.35)."""
POINTS = 28_001
BISECTIONS = 48
FLAT_RANGE = 10.0
"""A link constant on an interval inside [−FLAT_RANGE, FLAT_RANGE] is refused; beyond it (probability
1.5e−23) h′ may underflow to 0 and counts as the sign next to it."""


def _fill_tails(sign, far):
    """``sign`` with each zero at a far point (|g| > FLAT_RANGE) replaced by the nearest nonzero sign
    towards g = 0: there h′ underflows (e^{−g²}) while h stays monotone."""
    sign = sign.copy()
    middle = sign.size // 2
    for part, outer in ((sign[middle:], far[middle:]), (sign[middle::-1], far[middle::-1])):
        known = (part != 0) | ~outer  # part: a view, outward from the centre
        last = np.maximum.accumulate(np.where(known, np.arange(part.size), 0))
        part[:] = part[last]
    return sign


def _bisect(function, lo, hi, target, increasing, steps):
    """Vectorised bisection for function(g) = target on [lo, hi] (arrays), with ``function``
    increasing (``increasing``) or decreasing there."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        above = (function(mid) > target) == increasing
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return 0.5 * (lo + hi)


class Preimages:
    """The monotone pieces of h on the grid, and M(y) of (S1a)."""

    def __init__(self, h, dh, name):
        self.h, self.dh, self.name = h, dh, name
        grid = np.linspace(-HALF_WIDTH, HALF_WIDTH, POINTS)
        with np.errstate(all="ignore"):
            values, slopes = h(grid), dh(grid)
        if not (np.isfinite(values).all() and np.isfinite(slopes).all()):
            where = grid[~(np.isfinite(values) & np.isfinite(slopes))][0]
            raise ValueError(f"link {name!r}: h or h′ is not finite at g = {where:g}, inside [−28, 28]")
        inner = np.abs(grid) <= FLAT_RANGE
        flat = (slopes[1:] == 0) & (slopes[:-1] == 0) & inner[1:] & inner[:-1]
        if flat.any():
            raise ValueError(
                f"link {name!r} has h′ = 0 on an interval at g = {grid[np.argmax(flat)]:g} (h constant in "
                "float64): y has an atom there, and E[g² | y] is implemented for links without flat pieces"
            )
        sign = _fill_tails(np.sign(slopes), ~inner)
        self.grid, self.values = grid, values
        self.pieces = list(self._pieces(grid, sign))

    def _pieces(self, grid, sign):
        """(g nodes, h at them, increasing) of each monotone piece: the grid points between two
        consecutive breakpoints (grid points where h′ = 0, and the zeros of h′ between two grid
        points of opposite slope, located by bisection) with the breakpoints as its ends."""
        inner = [
            _bisect(self.dh, grid[i], grid[i + 1], 0.0, sign[i] < 0, 60)
            for i in np.flatnonzero(sign[:-1] * sign[1:] < 0)
        ]
        breaks = np.unique(np.concatenate([grid[[0, -1]], grid[sign == 0], inner]))
        for left, right in zip(breaks[:-1], breaks[1:], strict=True):
            interior = grid[(grid > left) & (grid < right)]
            nodes = np.concatenate([[left], interior, [right]])
            values = self.h(nodes)
            if values[-1] == values[0]:
                continue
            increasing = bool(values[-1] > values[0])
            steps = np.diff(values) if increasing else -np.diff(values)
            if steps.min() < -1e-9 * (1.0 + np.abs(values).max()):
                where = nodes[np.argmin(steps)]
                raise ValueError(
                    f"link {self.name!r} jumps near g = {where:.4g} (h′ does not see it): E[g² | y] needs a "
                    "continuous link"
                )
            yield nodes, values, increasing

    def conditional_second_moment(self, y):
        """M(y) of (S1a) for an array ``y``."""
        y = np.asarray(y, dtype=np.float64)
        flat = y.ravel()
        numerator = np.zeros_like(flat)
        denominator = np.zeros_like(flat)
        for nodes, values, increasing in self.pieces:
            lo_value, hi_value = (values[0], values[-1]) if increasing else (values[-1], values[0])
            inside = (flat >= lo_value) & (flat <= hi_value)
            if not inside.any():
                continue
            target = flat[inside]
            order = values if increasing else values[::-1]
            points = nodes if increasing else nodes[::-1]
            cell = np.clip(np.searchsorted(order, target), 1, points.size - 1)
            lo, hi = points[cell - 1], points[cell]
            root = _bisect(self.h, np.minimum(lo, hi), np.maximum(lo, hi), target, increasing, BISECTIONS)
            weight = np.exp(-0.5 * root**2) / np.maximum(np.abs(self.dh(root)), 1e-300)
            numerator[inside] += weight * root**2
            denominator[inside] += weight
        missing = (denominator == 0) & np.isfinite(flat)  # NaN in, NaN out
        for index in np.flatnonzero(missing):
            nearest = self.grid[np.argmin(np.abs(self.values - flat[index]))]
            numerator[index], denominator[index] = nearest**2, 1.0
        with np.errstate(invalid="ignore"):  # 0/0 for a NaN y only
            return (numerator / denominator).reshape(y.shape)
