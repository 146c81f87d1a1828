"""Thresholds: binomial logistic fit of success counts vs δ, and the first zero of a margin in δ
(docs/model.md, eq. (M10); the first crossing is δ_NN of docs/outlier.md, eqs. (O9) and (O14)).

Model: p(δ) = 1/(1 + exp(−(δ − δ₅₀)/s)), i.e. logit p = β₀ + β₁δ with β₁ = 1/s, β₀ = −δ₅₀/s.
The binomial log-likelihood ℓ(β) = Σ_i [k_i log p_i + (n_i − k_i) log(1 − p_i)] is maximised by
Newton's method (canonical link: observed = expected Fisher information
I(β) = Σ_i n_i p_i(1 − p_i) x_i x_iᵀ, x_i = (1, δ_i)).  Errors: I(β)⁻¹, propagated by the delta
method to δ₅₀ = −β₀/β₁ (gradient (−1/β₁, β₀/β₁²)) and s = 1/β₁ (gradient (0, −1/β₁²)).

With few trials per point the data are often (quasi-)separated — e.g. 0/8, 4/8, 8/8 — and the
maximum-likelihood estimate does not exist (s → 0, Newton diverges).  The fit then uses Firth's
penalised likelihood ℓ(β) + ½ log det I(β) (Jeffreys prior), whose estimate always exists; its
score is Σ_i [k_i − n_i p_i + h_i(½ − p_i)] x_i with h_i the leverages of
W^{1/2} X (XᵀWX)⁻¹ XᵀW^{1/2}, W = diag(n_i p_i(1 − p_i)).  Such rows carry ``status = "firth"``;
maximum-likelihood rows carry ``status = "ok"``.  With no success at all, or only successes,
there is no transition in range: NaN and a status that says so.
"""

from dataclasses import asdict, dataclass

import numpy as np


@dataclass
class LogisticFit:
    delta50: float
    delta50_err: float
    scale: float
    scale_err: float
    status: str

    def as_dict(self):
        return asdict(self)


def _probabilities(design, beta):
    return 1.0 / (1.0 + np.exp(-(design @ beta)))


def _fisher(design, p, n):
    return (design * (n * p * (1 - p))[:, None]).T @ design


def _score(design, beta, k, n, firth):
    """Score of the log-likelihood (Firth-modified when ``firth``) and the Fisher information."""
    p = _probabilities(design, beta)
    fisher = _fisher(design, p, n)
    resid = k - n * p
    if firth:
        wx = design * np.sqrt(n * p * (1 - p))[:, None]
        leverage = np.einsum("ij,jk,ik->i", wx, np.linalg.inv(fisher), wx)
        resid = resid + leverage * (0.5 - p)
    return design.T @ resid, fisher


def _newton(design, k, n, firth, max_iter=200, tol=1e-10):
    """β maximising the (penalised) likelihood, or None if Newton does not converge."""
    frac = np.clip(k.sum() / n.sum(), 1e-3, 1 - 1e-3)
    beta = np.array([np.log(frac / (1 - frac)), 0.0])
    for _ in range(max_iter):
        score, fisher = _score(design, beta, k, n, firth)
        if not np.isfinite(fisher).all() or np.linalg.cond(fisher) > 1e12:
            return None
        step = np.linalg.solve(fisher, score)
        step *= min(1.0, 5.0 / max(np.abs(step).max(), 1e-300))  # damp early overshoot
        beta = beta + step
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            return beta
    return None


def fit_logistic(delta, successes, trials):
    """Logistic fit of (δ₅₀, s) with 1-σ errors: maximum likelihood, or Firth when the MLE does not exist."""
    delta = np.asarray(delta, dtype=float)
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    keep = n > 0
    delta, k, n = delta[keep], k[keep], n[keep]
    if k.sum() == 0:
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "no successes")
    if k.sum() == n.sum():
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "all successes")
    design = np.column_stack([np.ones_like(delta), delta])
    status = "ok"
    beta = _newton(design, k, n, firth=False)
    if beta is None:
        status = "firth"
        beta = _newton(design, k, n, firth=True)
        if beta is None:
            return LogisticFit(np.nan, np.nan, np.nan, np.nan, "not converged")
    b0, b1 = beta
    if b1 <= 0:
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "success does not increase with delta")
    cov = np.linalg.inv(_fisher(design, _probabilities(design, beta), n))
    g50 = np.array([-1.0 / b1, b0 / b1**2])
    gs = np.array([0.0, -1.0 / b1**2])
    return LogisticFit(
        float(-b0 / b1),
        float(np.sqrt(g50 @ cov @ g50)),
        float(1.0 / b1),
        float(np.sqrt(gs @ cov @ gs)),
        status,
    )


FITTED = ("ok", "firth")
"""Statuses of a fit that has a δ₅₀ (maximum likelihood, or Firth's penalised likelihood)."""


def logistic(delta, delta50, scale):
    """p(δ) = 1/(1 + exp(−(δ − δ₅₀)/s))."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(delta) - delta50) / scale))
