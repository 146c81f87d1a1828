"""The logistic likelihood of one dimension's cells with the width profiled out, and the profile
intervals of δ₅₀ it gives (docs/finite_size.md, eqs. (F1)–(F3)).

Cells (δ_i, k_i successes of n_i trials) at one d; success probability p_i = σ(β (δ_i − m)), σ the
logistic function, m = δ₅₀ and β = 1/w the inverse width.  The binomial log-likelihood

    ℓ(m, β) = Σ_i [k_i ln σ(β x_i) + (n_i − k_i) ln σ(−β x_i)],   x_i = δ_i − m,          (F1)

is concave in β at fixed m.  Its profile over the width,

    L(m) = max_{0 ≤ β ≤ β_max} ℓ(m, β),    L′(m) = −β̂(m) Σ_i (k_i − n_i p̂_i)              (F2)

(the derivative by the envelope theorem), is what every law of δ₅₀(d) is fitted to: with a free
width per d the joint likelihood of all cells of all d is Σ_d L_d(δ₅₀(d)) exactly.  β_max (width
``W_MIN_FRACTION`` of the δ span) only matters for separated data, where the supremum is the limit
β → ∞.  Firth's penalised likelihood ℓ + ½ ln det I(β₀, β₁) (``featlearn.analysis.thresholds``) has
its own profile over the width; the per-d δ₅₀ interval uses it where the point estimate did.

The 95 % profile interval of δ₅₀ (level L) is {m : 2 (L(m̂) − L(m)) ≤ χ²₁(L)}            (F3)
"""

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special, stats

W_MIN_FRACTION = 1e-3
"""Smallest width the profile considers, as a fraction of the span of the δ grid (1 when it is a
single δ): the separated-data limit β → ∞ is reached to within its effect on ℓ."""

GRID_POINTS = 401
"""Points of the tabulated profile L(m) per d (cubic Hermite interpolation between them)."""


def chi2_cut(level):
    """½ χ²₁ quantile at ``level``: the drop of the log-likelihood that bounds a profile interval."""
    return 0.5 * float(stats.chi2.ppf(level, 1))


def _span(delta):
    delta = np.asarray(delta, dtype=float)
    return float(np.ptp(delta)) if delta.size > 1 and np.ptp(delta) > 0 else 1.0


def concave_argmax(score, lo, hi, start, iterations=60):
    """Where the decreasing ``score`` (the derivative of a concave function, vectorised) vanishes
    inside [lo, hi]: safeguarded Newton steps (``score`` returns (g, −g′)) kept inside the bracket,
    bisection when a step leaves it; an end of the bracket where g does not change sign."""
    lo, hi = np.array(lo, dtype=float), np.array(hi, dtype=float)
    x = np.clip(np.array(start, dtype=float), lo, hi)
    for _ in range(iterations):
        g, h = score(x)
        lo = np.where(g > 0, x, lo)
        hi = np.where(g > 0, hi, x)
        step = np.where(h > 0, x + g / np.where(h > 0, h, 1.0), np.nan)
        new = np.where((step > lo) & (step < hi), step, 0.5 * (lo + hi))
        done = np.all(np.abs(new - x) <= 1e-12 * (1 + np.abs(x)))
        x = new
        if done:
            break
    return x


def _loglik(k, n, z):
    return np.sum(k * special.log_expit(z) + (n - k) * special.log_expit(-z), axis=-1)


def profile_over_width(delta, successes, trials, m, beta_max=None):
    """(L(m), β̂(m)) of eq. (F2) for an array of m (``concave_argmax`` on β ↦ ∂ℓ/∂β in [0, β_max])."""
    delta, k, n = (np.asarray(v, dtype=float) for v in (delta, successes, trials))
    m = np.atleast_1d(np.asarray(m, dtype=float))
    beta_max = 1.0 / (W_MIN_FRACTION * _span(delta)) if beta_max is None else beta_max
    x = delta[None, :] - m[:, None]

    def score(beta):
        p = special.expit(beta[:, None] * x)
        return np.sum((k - n * p) * x, axis=1), np.sum(n * p * (1 - p) * x * x, axis=1)

    start = np.full(m.size, min(1.0 / (0.25 * _span(delta)), beta_max))
    beta = concave_argmax(score, np.zeros(m.size), np.full(m.size, beta_max), start)
    return _loglik(k, n, beta[:, None] * x), beta


def profile_over_centre(delta, successes, trials, beta):
    """max over m of ℓ(m, β) (F1) for an array of inverse widths β (concave in m; m searched within
    1.5 δ-spans of the grid)."""
    delta, k, n = (np.asarray(v, dtype=float) for v in (delta, successes, trials))
    beta = np.atleast_1d(np.asarray(beta, dtype=float))
    span = _span(delta)

    def score(m):
        p = special.expit(beta[:, None] * (delta[None, :] - m[:, None]))
        return -beta * np.sum(k - n * p, axis=1), beta**2 * np.sum(n * p * (1 - p), axis=1)

    size = beta.size
    lo, hi = np.full(size, delta.min() - 1.5 * span), np.full(size, delta.max() + 1.5 * span)
    m = concave_argmax(score, lo, hi, np.full(size, np.average(delta, weights=n)))
    return _loglik(k, n, beta[:, None] * (delta[None, :] - m[:, None]))


def _firth_loglik(delta, k, n, m, beta):
    """ℓ(m, β) + ½ ln det I of thresholds' Firth penalty, I = Σ n p(1 − p) x xᵀ, x = (1, δ)."""
    z = beta * (delta - m)
    p = special.expit(z)
    w = n * p * (1 - p)
    det = np.sum(w) * np.sum(w * delta**2) - np.sum(w * delta) ** 2
    ll = np.sum(k * special.log_expit(z) + (n - k) * special.log_expit(-z))
    return ll + 0.5 * np.log(det) if det > 0 else -np.inf


def firth_profile(delta, successes, trials, m):
    """Firth's penalised log-likelihood profiled over the width at each m (bounded scalar search
    on ln β over [β_max·10⁻⁶, β_max])."""
    delta, k, n = (np.asarray(v, dtype=float) for v in (delta, successes, trials))
    beta_max = 1.0 / (W_MIN_FRACTION * _span(delta))
    out = []
    for mi in np.atleast_1d(m):
        res = optimize.minimize_scalar(
            lambda u, mi=mi: -_firth_loglik(delta, k, n, mi, np.exp(u)),
            bounds=(np.log(beta_max) - 6 * np.log(10), np.log(beta_max)),
            method="bounded",
            options={"xatol": 1e-6},
        )
        out.append(-res.fun)
    return np.array(out)


def hermite(m0, step, values, slopes, m):
    """Cubic Hermite interpolation of tabulated values and slopes on the uniform grid m0 + j·step,
    continued linearly with the end slope beyond it: (value, slope) at m.  ``values``/``slopes`` may
    carry a leading axis of tables (one per d) matched by the last axis of ``m`` with ``m0`` and
    ``step`` of that length."""
    last = values.shape[-1] - 1
    u = (m - m0) / step
    i = np.clip(np.floor(u).astype(int), 0, last - 1)
    s = np.clip(u - i, 0.0, 1.0)
    if values.ndim == 1:
        y0, y1, d0, d1 = values[i], values[i + 1], slopes[i] * step, slopes[i + 1] * step
        first, end, first_slope, end_slope = values[0], values[-1], slopes[0], slopes[-1]
    else:
        rows = np.arange(values.shape[0])
        y0, y1 = values[rows, i], values[rows, i + 1]
        d0, d1 = slopes[rows, i] * step, slopes[rows, i + 1] * step
        first, end, first_slope, end_slope = values[:, 0], values[:, -1], slopes[:, 0], slopes[:, -1]
    s2, s3 = s * s, s * s * s
    value = (2 * s3 - 3 * s2 + 1) * y0 + (s3 - 2 * s2 + s) * d0 + (3 * s2 - 2 * s3) * y1 + (s3 - s2) * d1
    slope = ((6 * s2 - 6 * s) * (y0 - y1) + (3 * s2 - 4 * s + 1) * d0 + (3 * s2 - 2 * s) * d1) / step
    below, above = u < 0, u > last
    value = np.where(below, first + first_slope * (m - m0), value)
    value = np.where(above, end + end_slope * (u - last) * step, value)
    slope = np.where(below, first_slope, np.where(above, end_slope, slope))
    return value, slope


@dataclass
class WidthProfile:
    """L(m) of eq. (F2) for one d, tabulated on a uniform grid of m with its exact slope and read by
    cubic Hermite interpolation; beyond the grid it continues linearly with the end slope."""

    m0: float
    step: float
    values: np.ndarray
    slopes: np.ndarray
    peak: float
    peak_value: float

    @classmethod
    def from_cells(cls, delta, successes, trials, points=GRID_POINTS):
        delta, k, n = (np.asarray(v, dtype=float) for v in (delta, successes, trials))
        keep = n > 0
        delta, k, n = delta[keep], k[keep], n[keep]
        span = _span(delta)
        grid = np.linspace(delta.min() - 1.5 * span, delta.max() + 1.5 * span, points)
        values, beta = profile_over_width(delta, k, n, grid)
        p = special.expit(beta[:, None] * (delta[None, :] - grid[:, None]))
        slopes = -beta * np.sum(k - n * p, axis=1)
        table = cls(float(grid[0]), float(grid[1] - grid[0]), values, slopes, np.nan, np.nan)
        i = int(np.argmax(values))
        peak, peak_value = float(grid[i]), float(values[i])
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, points - 1)]
        if table(lo)[1] > 0 > table(hi)[1]:  # an interior maximum of the interpolant
            peak = optimize.brentq(lambda mm: float(table(mm)[1]), lo, hi, xtol=1e-10 * span)
            peak_value = max(float(table(peak)[0]), peak_value)
        table.peak, table.peak_value = peak, peak_value
        return table

    def __call__(self, m):
        """(L(m), L′(m)) for an array of m."""
        return hermite(self.m0, self.step, self.values, self.slopes, np.asarray(m, dtype=float))

    def curvature_error(self):
        """1/√(−L″(m̂)) by a central difference at the peak: the Gaussian reading of the profile's
        width (NaN where the peak is flat)."""
        h = self.step
        second = (self(self.peak + h)[0] - 2 * self.peak_value + self(self.peak - h)[0]) / h**2
        return float(1 / np.sqrt(-second)) if second < 0 else np.nan


def profile_interval(loglik, centre, top, cut, lo_limit, hi_limit):
    """(low, high) where the 1-D profile ``loglik`` (a function of the parameter) drops by ``cut``
    below its maximum ``top`` at ``centre``, searched by brentq inside [lo_limit, hi_limit]; a side
    that does not drop that far inside its limit is NaN (the interval does not close there)."""

    def drop(v):
        return top - loglik(v) - cut

    out = []
    for limit in (lo_limit, hi_limit):
        if not np.isfinite(limit) or drop(limit) < 0:
            out.append(np.nan)
            continue
        out.append(float(optimize.brentq(drop, *sorted((centre, limit)), xtol=1e-6 * (1 + abs(centre)))))
    return out[0], out[1]


def delta50_interval(delta, successes, trials, centre, firth, level=0.95):
    """The profile interval (F3) of one d's δ₅₀ around the point estimate ``centre`` of
    ``thresholds.fit_logistic``, with Firth's penalised profile when that estimate used it; NaN on a
    side that does not close within 1.5 δ-spans of the grid."""
    delta, k, n = (np.asarray(v, dtype=float) for v in (delta, successes, trials))
    keep = n > 0
    delta, k, n = delta[keep], k[keep], n[keep]
    if not np.isfinite(centre):
        return np.nan, np.nan
    if firth:

        def loglik(m):
            return float(firth_profile(delta, k, n, m)[0])

    else:

        def loglik(m):
            return float(profile_over_width(delta, k, n, m)[0][0])

    span = _span(delta)
    return profile_interval(
        loglik, centre, loglik(centre), chi2_cut(level), delta.min() - 1.5 * span, delta.max() + 1.5 * span
    )
