"""Hard-direction outlier of the Hessian from the joint law of (g², w) (docs/outlier.md, eqs.
(O3)–(O8); the code labels (B) and (O) below are its (O3) and (O4), the overlap² is (O5)).

Single neuron, H = (1/n) Xᵀ diag(w) X, hard direction θ* = e₁, g_i = θ*ᵀx_i, γ = p/n with
p = d − 1.  With m(λ) the Stieltjes transform of the bulk (the Hessian on the complement of θ*):

    (B) bulk:     1/m = −λ + E[ w / (1 + γ w m) ]
    (O) outlier:  λ   =  E[ g² w / (1 + γ w m(λ)) ]
    overlap²:     ρ² = 1 / (1 + γ m′(λ) E[ g² w² / (1 + γ w m)² ]),
                  m′(λ) = 1 / (1/m² − γ E[ w² / (1 + γ w m)² ]).

Below the bulk (O6)–(O7) the solver works in m ∈ (0, m_edge): λ_b(m) = −1/m + E[w/(1 + γwm)] is increasing
there (keeping 1 + γwm > 0 on the support, i.e. m < −1/(γ min w) when some w < 0); m_edge is the
zero of λ_b′(m) = 1/m² − γE[w²/(1 + γwm)²] (unique: m²λ_b′ = 1 − γE[(wm/(1 + γwm))²] decreases)
and the bulk left edge is λ_b(m_edge).  The outlier is the first root m_o ∈ (0, m_edge) of
φ(m) = 1/m − E[(1 − g²) w/(1 + γwm)] ((O) with (B) substituted), λ_o = λ_b(m_o).  No root: no
outlier below the bulk.

Expectations are weighted means over the given (g², w) pairs (equal weights by default): a DMFT
law, a fixed-point law on a quadrature grid, or the empirical law of a simulated state.

Negative-outlier margin (O8): λ_b is increasing on (0, m_edge), so a NEGATIVE outlier exists iff φ
changes sign before m* = min(m_edge, m₀), m₀ the zero of λ_b (λ_b(m₀) = 0, when the edge is
positive).  φ starts at +∞, so ``margin`` = m*·φ(m*) (dimensionless) is negative iff there is a
negative outlier; it varies continuously with the law and locates thresholds by interpolation.
"""

from dataclasses import dataclass

import numpy as np
from numba import njit
from scipy import optimize

from featlearn.model.loss import SQUARE, loss_derivatives

RATIO, RATIO_SQUARED, HARD_RATIO, SCALED_RATIO_SQUARED = range(4)
"""The integrands of :func:`_integrands`: r, r², (1 − g²) r and (m r)², r = w/(1 + γwm)."""


@njit(cache=True, fastmath=False)
def _integrands(kind, w, gamma_w, g2, m):
    """out[i, k] = f(r_ik), r_ik = w_k/(1 + (γw_k) m_i), for the integrand ``kind`` (``RATIO`` …).

    One pass, no temporaries; each entry is the same sequence of IEEE operations as the NumPy
    expressions it replaces (``γw`` precomputed, no fastmath), so the means that follow are the
    same bits."""
    out = np.empty((m.size, w.size))
    for i in range(m.size):
        mi = m[i]
        for k in range(w.size):
            r = w[k] / (1.0 + gamma_w[k] * mi)
            if kind == RATIO_SQUARED:
                r = r * r
            elif kind == HARD_RATIO:
                r = (1.0 - g2[k]) * r
            elif kind == SCALED_RATIO_SQUARED:
                r = (mi * r) * (mi * r)
            out[i, k] = r
    return out


@dataclass
class OutlierResult:
    bulk_edge: float  # left edge of the bulk, λ_b(m_edge)
    outlier: float  # λ_o, NaN when there is no outlier
    overlap2: float  # ρ² of the outlier eigenvector with θ*, NaN when there is none
    exists: bool


class OutlierSolver:
    """Solves (B) and (O) for samples ``g2`` = g² and ``w`` at aspect ratio ``gamma`` = p/n.

    ``w_floor``: the infimum of w over the law's support where the samples are quadrature nodes of a
    continuous law whose support reaches below its nodes (the fixed point's, at a cusp of the
    prox: 1 + κw → 0, (O18a)); it bounds m (m < −1/(γ w_floor)) as the least node would."""

    def __init__(self, g2, w, gamma, weights=None, w_floor=None):
        self.g2 = np.asarray(g2, dtype=float)
        self.w = np.asarray(w, dtype=float)
        self.gamma = float(gamma)
        n = self.w.size
        self.p = np.full(n, 1.0 / n) if weights is None else np.asarray(weights, float) / np.sum(weights)
        if weights is not None:  # zero-weight nodes do not belong to the law
            keep = self.p > 0
            self.g2, self.w, self.p = self.g2[keep], self.w[keep], self.p[keep]
        self._gamma_w = self.gamma * self.w
        w_min = self.w.min() if w_floor is None else min(float(w_floor), self.w.min())
        self.m_max = -1.0 / (self.gamma * w_min) if w_min < 0 else np.inf

    def _mean(self, values):
        """E[·] of values with shape (..., N) over the last axis."""
        return values @ self.p

    def _values(self, kind, m):
        """The integrand ``kind`` (:func:`_integrands`) at scalar or 1-d ``m``: shape (N,) or (len(m), N)."""
        values = _integrands(kind, self.w, self._gamma_w, self.g2, np.atleast_1d(np.asarray(m, dtype=float)))
        return values[0] if np.ndim(m) == 0 else values

    def _expect(self, kind, m):
        """E[f(w/(1 + γwm))] for the integrand ``kind``, scalar or 1-d ``m``."""
        return self._mean(self._values(kind, m))

    @staticmethod
    def _out(m, value):
        return float(value) if np.ndim(m) == 0 else value

    def lambda_b(self, m):
        """λ_b(m) = −1/m + E[w/(1 + γwm)] (scalar or vectorised in m)."""
        return self._out(m, -1.0 / np.asarray(m, float) + self._expect(RATIO, m))

    def dlambda_b(self, m):
        """λ_b′(m) = 1/m² − γE[w²/(1 + γwm)²]."""
        return self._out(m, 1.0 / np.asarray(m, float) ** 2 - self.gamma * self._expect(RATIO_SQUARED, m))

    def phi(self, m):
        """φ(m) = 1/m − E[(1 − g²) w/(1 + γwm)]."""
        return self._out(m, 1.0 / np.asarray(m, float) - self._expect(HARD_RATIO, m))

    def _first_root(self, func, hi, points=200, chunk=50):
        """First sign change (from + to ≤ 0) of ``func`` on a log grid of (0, hi], refined by brentq;
        None when there is none.  The grid is evaluated ``chunk`` points at a time (vectorised)."""
        grid = np.geomspace(1e-12, hi, points)
        for lo_i in range(0, points, chunk):
            values = func(grid[lo_i : lo_i + chunk])
            below = np.nonzero(values <= 0)[0]
            if below.size:
                i = lo_i + below[0]
                if i == 0:
                    return grid[0]
                return optimize.brentq(func, grid[i - 1], grid[i], xtol=1e-14, rtol=1e-12)
        return None

    def _scaled_dlambda_b(self, m):
        """m²λ_b′(m) = 1 − γE[(wm/(1 + γwm))²]: strictly decreasing in m on (0, m_max)."""
        return 1.0 - self.gamma * self._expect(SCALED_RATIO_SQUARED, m)

    def m_edge(self):
        """The zero of λ_b′ in (0, m_max), unique because m²λ_b′ decreases (cached)."""
        if getattr(self, "_m_edge", None) is None:
            if np.isfinite(self.m_max):
                hi = self.m_max * (1 - 1e-12)
                if self._scaled_dlambda_b(hi) > 0:  # λ_b increases up to the support's floor: a hard edge
                    self._m_edge = hi
                    return hi
            else:
                hi = 1.0
                while self._scaled_dlambda_b(hi) > 0:
                    hi *= 2.0
                    if hi > 1e12:
                        raise ValueError("no bulk edge: λ_b is increasing on (0, ∞)")
            self._m_edge = optimize.brentq(self._scaled_dlambda_b, 1e-12, hi, xtol=1e-14, rtol=1e-13)
        return self._m_edge

    def margin(self):
        """m*·φ(m*), m* = min(m_edge, m₀): negative iff a negative outlier exists (module docstring)."""
        m_edge = self.m_edge()
        m_star = m_edge
        if self.lambda_b(m_edge) > 0:
            m_star = optimize.brentq(self.lambda_b, 1e-12, m_edge, xtol=1e-14, rtol=1e-12)
        return m_star * self.phi(m_star)

    def solve(self):
        """Bulk edge, outlier and overlap² (NaN and ``exists=False`` when there is no outlier)."""
        m_edge = self.m_edge()
        edge = self.lambda_b(m_edge)
        if self.phi(m_edge) >= 0:
            return OutlierResult(edge, np.nan, np.nan, False)
        m_o = self._first_root(self.phi, m_edge)
        ratio = self._values(RATIO, m_o)
        dm = 1.0 / self.dlambda_b(m_o)
        rho2 = 1.0 / (1.0 + self.gamma * dm * float(self._mean(self.g2 * ratio**2)))
        return OutlierResult(edge, self.lambda_b(m_o), float(rho2), True)


def empirical_weights(x, y, theta, a, b, activation, hard, loss=SQUARE):
    """(g², w) of a single-neuron state: g = x·θ*, w = ℓ″(y_i, x_i·θ) of ``loss`` (a
    ``featlearn.model.loss.Loss``; second layer a₁, bias b₁)."""
    x = np.asarray(x, dtype=np.float64)
    _, _, w = loss_derivatives(activation, a[0], b[0], y, x @ theta[0], loss)
    return (x @ hard) ** 2, w


def warm():
    """Compile the integrand kernel (``io.warmup``): the outlier of a small law, scalar and vector m."""
    rng = np.random.default_rng(0)
    solver = OutlierSolver(rng.standard_normal(64) ** 2, rng.standard_normal(64), 0.5)
    solver.solve()
    solver.margin()
