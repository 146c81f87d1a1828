"""Optimal spectral method for single-index targets (docs/spectral.md, eqs. (S1)–(S4); the labels
(S1)–(S3) below are those of the page; the spectral initialisation (S5) is ``gd.trials``).

With g ~ N(0, 1), y = h(g) + σ_noise·ε and M(y) = E[g² | y]:

* weak-recovery threshold   δ_u = 1 / E_y[(M(y) − 1)²]                                   (S1)
  (= δ_alg, the threshold of the optimal spectral method; 1/2 for y = g² and y = g² − 1);
* optimal preprocessing (real case)
                            T*(y) = (M(y) − 1) / (M(y) + √(δ/δ_u) − 1)                   (S2)
* estimator: the top eigenvector of D = (1/n) Σ_i T(y_i) x_i x_iᵀ, by matrix-free Lanczos
  (``scipy.sparse.linalg.eigsh`` on v ↦ Xᵀ(T ⊙ Xv)/n; no d×d matrix is formed);
* asymptotic overlap (Lu & Li):  ψ(λ) = λ(1/δ + E[T/(λ − T)]),  φ(λ) = λ E[T g²/(λ − T)],
  λ̄ = argmin_{λ > sup T} ψ(λ);  λ* solves ψ(max(λ, λ̄)) = φ(λ);
  ρ² = ψ′(λ*)/(ψ′(λ*) − φ′(λ*)) if λ* > λ̄, else ρ = 0.                                 (S3)

Expectations over (g, ε) use Gauss–Hermite quadrature (probabilists' nodes); M(y) comes from the
preimages of y when there is no noise (``featlearn.model.link_preimages``, (S1a)), and is the ratio
M(y) = E_g[g² p(y|g)] / E_g[p(y|g)] on a fine uniform g-grid otherwise.
"""

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from scipy import optimize
from scipy.sparse.linalg import LinearOperator, eigsh

from featlearn.model.links import get_link

QUAD_NODES = 200
NOISE_NODES = 40


def gauss_nodes(count):
    """Nodes and weights with Σ w f(x) ≈ E[f(Z)], Z ~ N(0, 1)."""
    x, w = hermegauss(count)
    return x, w / np.sqrt(2 * np.pi)


class SingleIndexLaw:
    """The joint law of (g, y) for a single-index link, as quadrature nodes."""

    def __init__(self, link, noise=0.0):
        self.link = get_link(link)
        if self.link.k != 1:
            raise ValueError(f"link {link!r} has k = {self.link.k}; the spectral method here is single-index")
        self.noise = float(noise)
        g, wg = gauss_nodes(QUAD_NODES)
        hg = self.link.h(g[:, None])
        if self.noise > 0:
            e, we = gauss_nodes(NOISE_NODES)
            self.g = np.repeat(g, e.size)
            self.y = (hg[:, None] + self.noise * e[None, :]).ravel()
            self.w = np.outer(wg, we).ravel()
        else:
            self.g, self.y, self.w = g, hg, wg
        # M(y) with noise: the likelihood in g is narrow (width ≈ σ/(2|g|) for y = g²), so it is
        # integrated on a fine uniform grid (trapezoid rule, spectrally accurate here).
        fine = np.linspace(-12.0, 12.0, 4801)
        self._g_nodes, self._h_nodes = fine, self.link.h(fine[:, None])
        self._g_weights = np.exp(-0.5 * fine**2) * (fine[1] - fine[0]) / np.sqrt(2 * np.pi)
        self.m = self.g2_given_y(self.y)

    def g2_given_y(self, y):
        """M(y) = E[g² | y]: from the preimages of y without noise (S1a), else on the fine grid."""
        y = np.asarray(y, dtype=float)
        if self.noise == 0:
            return self.link.g2_given_y(y)
        log_lik = -0.5 * ((y[..., None] - self._h_nodes) / self.noise) ** 2
        lik = np.exp(log_lik - log_lik.max(axis=-1, keepdims=True)) * self._g_weights  # no underflow
        return (lik * self._g_nodes**2).sum(-1) / lik.sum(-1)

    def expect(self, values):
        """E[values] for values given at the quadrature nodes."""
        return float(np.sum(self.w * values))


def weak_recovery_threshold(link, noise=0.0):
    """δ_u = 1/E_y[(E[g²|y] − 1)²]  (S1)."""
    law = SingleIndexLaw(link, noise)
    return 1.0 / law.expect((law.m - 1.0) ** 2)


def preprocessing_of_moment(m, delta, delta_u):
    """T* of (S2) written in M = E[g²|y]: (M − 1)/(M + √(δ/δ_u) − 1)."""
    return (m - 1.0) / (m + np.sqrt(delta / delta_u) - 1.0)


def optimal_preprocessing(law, delta):
    """T*(·) of (S2) as a function of y, for sample ratio δ > δ_u.

    For δ ≤ δ_u the denominator M + √(δ/δ_u) − 1 vanishes at M = 1 − √(δ/δ_u) ∈ [0, 1), inside
    the support of M, and no spectral method recovers θ* anyway (ρ = 0): that is an error.
    """
    delta_u = 1.0 / law.expect((law.m - 1.0) ** 2)
    if delta <= delta_u:
        raise ValueError(f"delta = {delta} <= delta_u = {delta_u:.4g}: T* has a pole on the support of y")
    return lambda y: preprocessing_of_moment(law.g2_given_y(y), delta, delta_u)


def spectral_matrix_operator(x, t):
    """LinearOperator v ↦ D v = Xᵀ(t ⊙ Xv)/n, with D = (1/n) Σ t_i x_i x_iᵀ."""
    n, d = x.shape
    return LinearOperator((d, d), matvec=lambda v: x.T @ (t * (x @ v)) / n, dtype=np.float64)


def top_eigenvector(x, t, tol=1e-8, dense_below=0):
    """(λ_max, v) of D; dense ``eigh`` when d < ``dense_below``, else Lanczos (``eigsh``, which='LA')."""
    d = x.shape[1]
    if d < dense_below:
        vals, vecs = np.linalg.eigh((x * t[:, None]).T @ x / x.shape[0])
        return float(vals[-1]), vecs[:, -1]
    v0 = np.ones(d) / np.sqrt(d)
    vals, vecs = eigsh(spectral_matrix_operator(x, t), k=1, which="LA", tol=tol, v0=v0)
    return float(vals[0]), vecs[:, 0]


def spectral_estimator(x, y, law, delta):
    """Unit vector estimate of θ* from the top eigenvector of D with T = T*."""
    _, v = top_eigenvector(np.asarray(x, dtype=np.float64), optimal_preprocessing(law, delta)(y))
    return v


def asymptotic_overlap(link, delta, noise=0.0):
    """ρ(δ) of the optimal spectral estimator, by (S3); 0 at and below the weak-recovery threshold."""
    law = SingleIndexLaw(link, noise)
    delta_u = 1.0 / law.expect((law.m - 1.0) ** 2)
    if delta <= delta_u:
        return 0.0
    t = preprocessing_of_moment(law.m, delta, delta_u)
    g2 = law.g**2
    sup_t = float(t.max())

    def psi(lam):
        return lam * (1.0 / delta + law.expect(t / (lam - t)))

    def dpsi(lam):
        return 1.0 / delta + law.expect(t / (lam - t)) - lam * law.expect(t / (lam - t) ** 2)

    def phi(lam):
        return lam * law.expect(t * g2 / (lam - t))

    def dphi(lam):
        return law.expect(t * g2 / (lam - t)) - lam * law.expect(t * g2 / (lam - t) ** 2)

    span = max(1.0, abs(sup_t))
    lo, hi = sup_t + 1e-9 * span, sup_t + 1e3 * span
    if dpsi(lo) >= 0:
        lam_bar = lo
    else:
        lam_bar = optimize.brentq(dpsi, lo, hi, xtol=1e-13 * span)

    # ψ − φ = λ(1/δ − E[T(g² − 1)/(λ − T)]): λ* > λ̄ exists iff it is negative at λ̄.
    def gap(lam):
        return psi(lam) - phi(lam)

    if gap(lam_bar) >= 0:
        return 0.0
    lam_star = optimize.brentq(gap, lam_bar, hi, xtol=1e-13 * span)
    rho2 = dpsi(lam_star) / (dpsi(lam_star) - dphi(lam_star))
    return float(np.sqrt(max(rho2, 0.0)))
