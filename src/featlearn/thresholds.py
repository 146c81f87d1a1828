"""Empirical thresholds: binomial maximum-likelihood logistic fit of success counts.

Model: p(δ) = 1/(1 + exp(−(δ − δ₅₀)/s)), i.e. logit p = β₀ + β₁δ with β₁ = 1/s, β₀ = −δ₅₀/s.
The binomial log-likelihood Σ_i [k_i log p_i + (n_i − k_i) log(1 − p_i)] is maximised by
Newton's method in (β₀, β₁) (canonical link, so the observed Fisher information equals
Σ_i n_i p_i(1 − p_i)(1, δ_i)ᵀ(1, δ_i)).  Errors: the inverse Fisher information, propagated by
the delta method to δ₅₀ = −β₀/β₁ (gradient (−1/β₁, β₀/β₁²)) and s = 1/β₁ (gradient (0, −1/β₁²)).

When the data are completely separated (every point below some δ fails, every point above
succeeds) the MLE does not exist (s → 0).  The fit then reports δ₅₀ as the midpoint of the gap
between the last all-fail and the first all-success δ, its error as half the gap, s = 0 and
``status = "separated"``.  Under quasi-separation (Newton's information matrix becomes singular)
it reports NaN with ``status = "no finite MLE"``.  With no transition in range it reports NaN
and ``status`` says why.
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


def _separation_gap(delta, k, n):
    """(last δ with no success, first δ with all successes) if the data are separated, else None."""
    order = np.argsort(delta)
    delta, k, n = delta[order], k[order], n[order]
    partial = (k > 0) & (k < n)
    if partial.any():
        return None
    succ = k == n
    if succ.all() or not succ.any():
        return None
    first = np.argmax(succ)
    if not succ[first:].all():
        return None
    return delta[first - 1], delta[first]


def _fisher_and_score(design, beta, k, n):
    """Observed Fisher information and score of the binomial log-likelihood at β."""
    p = 1.0 / (1.0 + np.exp(-(design @ beta)))
    return (design * (n * p * (1 - p))[:, None]).T @ design, design.T @ (k - n * p)


def fit_logistic(delta, successes, trials, max_iter=100, tol=1e-10):
    """Binomial MLE of (δ₅₀, s) with 1-σ errors from the observed Fisher information."""
    delta = np.asarray(delta, dtype=float)
    k = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    keep = n > 0
    delta, k, n = delta[keep], k[keep], n[keep]
    if k.sum() == 0:
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "no successes")
    if k.sum() == n.sum():
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "all successes")
    gap = _separation_gap(delta, k, n)
    if gap is not None:
        lo, hi = gap
        return LogisticFit(float(0.5 * (lo + hi)), float(0.5 * (hi - lo)), 0.0, np.nan, "separated")
    design = np.column_stack([np.ones_like(delta), delta])
    frac = np.clip(k.sum() / n.sum(), 1e-3, 1 - 1e-3)
    beta = np.array([np.log(frac / (1 - frac)), 0.0])
    status = "no finite MLE"
    for _ in range(max_iter):
        fisher, score = _fisher_and_score(design, beta, k, n)
        if np.linalg.cond(fisher) > 1e12:
            break
        step = np.linalg.solve(fisher, score)
        beta = beta + step
        if np.max(np.abs(step)) < tol * (1 + np.max(np.abs(beta))):
            status = "ok"
            break
    if status != "ok":
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, status)
    b0, b1 = beta
    if b1 <= 0:
        return LogisticFit(np.nan, np.nan, np.nan, np.nan, "success does not increase with delta")
    fisher, _ = _fisher_and_score(design, beta, k, n)
    cov = np.linalg.inv(fisher)
    g50 = np.array([-1.0 / b1, b0 / b1**2])
    gs = np.array([0.0, -1.0 / b1**2])
    return LogisticFit(
        float(-b0 / b1),
        float(np.sqrt(g50 @ cov @ g50)),
        float(1.0 / b1),
        float(np.sqrt(gs @ cov @ gs)),
        status,
    )


def logistic(delta, delta50, scale):
    """p(δ) = 1/(1 + exp(−(δ − δ₅₀)/s))."""
    return 1.0 / (1.0 + np.exp(-(np.asarray(delta) - delta50) / scale))
