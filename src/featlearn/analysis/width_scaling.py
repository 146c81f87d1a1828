"""How the transition's width scales with d: w(d) = w₀ (d/d_ref)^(−μ) fitted by the joint binomial
likelihood of every cell, each d keeping its own δ₅₀ (docs/finite_size.md, eq. (F7)).

    ℓ(w₀, μ) = Σ_d max_{m_d} ℓ_d(m_d, β_d),   β_d = (d/d_ref)^μ / w₀,                      (F7)

ℓ_d of eq. (F1) (``width_profile``).  μ's interval is its profile (F5); the width law is tested
against a free width per d by the likelihood ratio 2(Σ_d max ℓ_d − ℓ̂), χ² with N_d − 2 degrees of
freedom.
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from featlearn.analysis.scaling_laws import grid_maximise
from featlearn.analysis.width_profile import chi2_cut, profile_interval, profile_over_centre

MU_RANGE = (-3.0, 3.0)
"""Range searched for μ: a width that changes by more than 2³ per doubling of d is outside it."""


@dataclass
class WidthLaw:
    """The fit of (F7): w₀, μ with μ's profile interval, ℓ̂, and the test against free widths."""

    w0: float
    mu: float
    mu_low: float
    mu_high: float
    loglik: float
    lr: float
    dof: int
    p_value: float
    status: str

    def width(self, d, d_ref):
        return self.w0 * (np.asarray(d, dtype=float) / d_ref) ** (-self.mu)


def _loglik(cells, t, log_w0, mu):
    """ℓ(w₀, μ) of (F7) for arrays of ln w₀ and μ (same shape)."""
    total = np.zeros(np.shape(log_w0))
    for c, td in zip(cells, t, strict=True):
        beta = np.exp(mu * np.log(2.0) * td - log_w0).ravel()
        total += profile_over_centre(c.delta, c.successes, c.trials, beta).reshape(total.shape)
    return total


def fit_width_law(cells, free_loglik, level=0.95, start_width=1.0):
    """(F7) on the usable d's cells ({d: Cells}); ``free_loglik`` is Σ_d max ℓ_d (a free width and
    δ₅₀ per d), ``start_width`` centres the search of w₀.  Needs 3 d."""
    ds = np.array(sorted(cells), dtype=float)
    if ds.size < 3:
        nan = np.nan
        return WidthLaw(nan, nan, nan, nan, nan, nan, 0, nan, f"too few d ({ds.size})")
    t = np.log2(ds / ds.min())
    chosen = [cells[int(d)] for d in ds]
    axes = [np.log(start_width) + np.linspace(-3, 3, 25), np.linspace(*MU_RANGE, 25)]
    (log_w0, mu), top = grid_maximise(
        lambda x: _loglik(chosen, t, x[..., 0], x[..., 1]),
        axes,
        [-np.inf, MU_RANGE[0]],
        [np.inf, MU_RANGE[1]],
    )

    def profile(v):
        def values(x):
            return _loglik(chosen, t, x[..., 0], np.full(x.shape[:-1], v))

        return grid_maximise(values, [log_w0 + np.linspace(-2, 2, 17)], [-np.inf], [np.inf])[1]

    low, high = profile_interval(profile, mu, top, chi2_cut(level), *MU_RANGE)
    lr = 2 * max(free_loglik - top, 0.0)
    dof = int(ds.size - 2)
    return WidthLaw(
        float(np.exp(log_w0)), float(mu), low, high, top, lr, dof, float(stats.chi2.sf(lr, dof)), "ok"
    )
