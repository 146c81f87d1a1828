"""The plateau's own spectral threshold at finite d: δ_spec(d), the δ above which the Hessian at the
converged restricted-GD plateau has a negative eigenvalue whose eigenvector is aligned with the hard
subspace, the outlier that lets GD escape (docs/finite_size.md, eqs. (F14), (F15)).

Per (d, δ, seed) the plateau cells (``hessian.plateau``) record the k smallest eigenvalues and the
overlap² of their eigenvectors with the hard subspace.  Two estimators per d, over every seed of that d:

**Aligned crossing (F14), δ_spec from its definition.**  A_i = 1 when seed i has an aligned negative
eigenvalue among those recorded (``criteria.negative_aligned``: λ < 0 and overlap² ≥ 0.1).  Binomial
likelihood of a logistic rise,

    P(A = 1 | δ) = 1 / (1 + exp(−b (δ − δ_spec))),   b ≥ 0,                                     (F14)

δ̂_spec its maximiser and the 95 % interval the profile likelihood's
{δ : 2 [ℓ̂ − max_b ℓ(δ, b)] ≤ χ²₁(0.95)}.  For b ≥ 0 the set of lines b (δ − δ₀) through the
origin of the (intercept, slope) plane meets each convex level set of ℓ in an interval of δ₀, so the
profile's level sets are intervals.  As δ₀ → +∞ (−∞) the profile tends to the likelihood of the best
constant P ≤ ½ (≥ ½): where that limit is within the cut, the side is open (NaN), never a number.
Separated outcomes (every A = 0 below every A = 1) have their maximisers on the whole gap (b → ∞):
δ̂_spec is the gap's midpoint, a tie at one δ (both outcomes there and nowhere else) that δ; all A
equal, A falling with δ, or a share flat to rounding (a maximiser beyond ``FAR`` grid spans) leave
δ̂_spec NaN (only the profile's one-sided set is reported).  At a tie the profile is its supremum as
δ_spec → that δ (the tied seeds at their own share), so that it is upper semicontinuous.

**λ_min crossing (F15), a cross-check.**  λ_min regressed on a polynomial of degree q in δ,

    λ_min = Σ_{j ≤ q} c_j δ^j + ε,   ε ~ N(0, s²)  (s² the residual variance, n − q − 1 dof),     (F15)

q = 1 unless the line's lack-of-fit test in the direction of curvature (the F test of adding δ²)
has p < 0.2 (``CURVATURE_LEVEL``), then q = 2.  The crossing is the root where the fit
falls (the one nearest the grid's centre), its interval Fieller's, the test inversion

    μ̂(δ)² ≤ t²_{n−q−1} s² x(δ)ᵀ(XᵀX)⁻¹x(δ),   x(δ) = (1, δ, …, δ^q),

its connected piece containing the root within the window [δ_min − Δ, δ_max + Δ] (Δ the grid's
span): a local polynomial says nothing beyond, so a side reaching the window is open (NaN), and a
root outside the window is not reported.

**Across d** (:func:`trend`): weighted least squares with σ_d = (high − low)/(2 q_d), q_d = z_{0.975}
for the profile interval and t_{n−q−1}(0.975) for Fieller's: the weighted mean (the constant law)
with its χ² p-value, and the slope per doubling of d (three d or more).  δ_spec answers "is δ_NN(∞)
the plateau's spectral transition?" separately from "does GD's threshold reach it?".
"""

import math

import numpy as np
from scipy import optimize, stats

from featlearn.analysis.criteria import negative_aligned

CURVATURE_LEVEL = 0.2
"""The curvature test's p below which (F15) steps up to the quadratic.  Liberal on purpose: a missed
curvature biases the crossing (a line through concave λ_min(δ) crosses zero early), an unneeded
quadratic only widens the interval (tests/test_spectral_threshold.py measures both)."""


FAR = 1e3
"""Spans of the δ grid beyond which δ_spec counts as ±∞ in (F14): a maximiser farther out (a share
flat to rounding, b̂ ≈ 0) is not reported, and the search for a closed side starts from that far
point of the open one."""


def _profile(delta, aligned, d0):
    """max_{b ≥ 0} of the log-likelihood of (F14) with δ_spec = d0 (−∞ never: b = 0 gives n log ½),
    upper semicontinuous in d0.  u_i = ±(δ_i − d0) (sign of the outcome): ℓ(b) = −Σ log(1 + e^{−b u_i})
    is concave in b.  Separated at d0 (every u ≥ 0, b → ∞) with seeds at δ = d0 itself (u = 0, both
    outcomes possible there): the value is the supremum over b and δ_spec → d0, where b (d0 − δ_spec)
    gives those seeds any P, so their share k/n: the binomial likelihood of that share, not n log ½
    (the likelihood exactly at d0), which would dip below the maximum at a tie."""
    u = np.where(aligned, 1.0, -1.0) * (delta - d0)
    if np.all(u >= 0):  # separated at d0 (every seed at d0 included): b → ∞
        at = u == 0
        n_at, k_at = int(at.sum()), int(aligned[at].sum())
        return _constant_loglik(k_at, n_at, k_at / n_at) if n_at else 0.0
    if u.sum() <= 0:  # ℓ'(0) = Σu/2 ≤ 0: b = 0
        return -u.size * math.log(2)

    def slope(b):
        return float(np.sum(u * 0.5 * (1 - np.tanh(0.5 * b * u))))  # Σ u σ(−b u)

    high = 1.0 / np.max(np.abs(u))
    while slope(high) > 0:
        high *= 2
    b = optimize.brentq(slope, 0.0, high, xtol=1e-12)
    return float(-np.sum(np.logaddexp(0.0, -b * u)))


def _constant_loglik(k, n, p):
    """Binomial log-likelihood of k of n at a constant p (0 log 0 = 0)."""
    return sum(m * math.log(q) for m, q in ((k, p), (n - k, 1 - p)) if m > 0)


def _logistic_mle(delta, aligned):
    """(δ̂_spec, ℓ̂, b̂) of (F14), the separated and falling cases as in the module docstring."""
    n, k = aligned.size, int(aligned.sum())
    if k in (0, n):
        return math.nan, 0.0, math.nan
    top0, low1 = delta[~aligned].max(), delta[aligned].min()
    if top0 < low1:  # complete separation: the gap
        return 0.5 * (top0 + low1), 0.0, math.inf
    if top0 == low1:  # a tie at one δ
        tie = delta == top0
        return (
            float(top0),
            _constant_loglik(int(aligned[tie].sum()), int(tie.sum()), aligned[tie].mean()),
            math.inf,
        )
    if delta[aligned].max() <= delta[~aligned].min():  # falling, separated: the best constant
        return math.nan, _constant_loglik(k, n, k / n), 0.0
    x = np.column_stack([np.ones(n), delta - delta.mean()])
    beta = np.zeros(2)
    for _ in range(100):  # Newton's method on the logistic GLM (the MLE exists: outcomes overlap)
        p = 1 / (1 + np.exp(-x @ beta))
        step = np.linalg.solve(x.T @ (x * (p * (1 - p))[:, None]), x.T @ (aligned - p))
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    if beta[1] <= 0:  # no rise: the best constant, at δ_spec = ±∞
        return math.nan, _constant_loglik(k, n, k / n), 0.0
    eta = x @ beta
    loglik = float(np.sum(np.where(aligned, -np.logaddexp(0, -eta), -np.logaddexp(0, eta))))
    return float(delta.mean() - beta[0] / beta[1]), loglik, float(beta[1])


def aligned_crossing(delta, aligned, level=0.95):
    """(F14): {estimate, low, high, se, scale, aligned, points} from the seeds (δ_i, A_i) of one d;
    ``scale`` = 1/b̂ (the logistic width in δ), se = (high − low)/(2 z); NaN where not identified."""
    delta, aligned = np.asarray(delta, dtype=float), np.asarray(aligned, dtype=bool)
    n, k = aligned.size, int(aligned.sum())
    out = {"points": n, "aligned": k, "low": math.nan, "high": math.nan, "se": math.nan}
    estimate, loglik, b = _logistic_mle(delta, aligned) if n else (math.nan, 0.0, math.nan)
    span = max(float(np.ptp(delta)), 1.0) if n else 1.0
    if n and not delta.min() - FAR * span <= estimate <= delta.max() + FAR * span:
        estimate, b = math.nan, math.nan  # a flat share's maximiser lies at ±∞ up to rounding
    out |= {"estimate": estimate, "scale": 1 / b if 0 < b < math.inf else math.nan}
    if n == 0:
        return out
    cut = loglik - 0.5 * stats.chi2.ppf(level, 1)
    limits = {1: _constant_loglik(k, n, min(k / n, 0.5)), -1: _constant_loglik(k, n, max(k / n, 0.5))}
    if math.isfinite(estimate):
        inside = estimate
    else:  # the open side's far end lies in the set
        side = 1 if limits[1] >= limits[-1] else -1
        inside = (delta.max() if side > 0 else delta.min()) + side * FAR * span
    for side, key in ((-1, "low"), (1, "high")):
        if limits[side] >= cut:
            continue  # open
        step = span
        while _profile(delta, aligned, inside + side * step) >= cut:
            step *= 2
        root = optimize.brentq(
            lambda d0: _profile(delta, aligned, d0) - cut, inside, inside + side * step, xtol=1e-6
        )
        out[key] = float(root)
    if math.isfinite(out["low"]) and math.isfinite(out["high"]):
        out["se"] = float((out["high"] - out["low"]) / (2 * stats.norm.ppf(0.5 + level / 2)))
    return out


def _polynomial(delta, lam, q):
    """Least squares of (F15) at degree q: (coefficients c_0…c_q, (XᵀX)⁻¹, residual sum of squares)."""
    x = np.vander(delta, q + 1, increasing=True)
    gram_inv = np.linalg.inv(x.T @ x)
    coef = gram_inv @ x.T @ lam
    return coef, gram_inv, float(np.sum((lam - x @ coef) ** 2))


def curvature_p(delta, lam):
    """The line's lack-of-fit test in the direction of curvature (F15): the F test of adding δ² to
    the line, F = (SSE₁ − SSE₂) / [SSE₂/(n − 3)] on (1, n − 3) dof; NaN with fewer than three distinct
    δ or four points."""
    if np.unique(delta).size < 3 or delta.size < 4:
        return math.nan
    line, quadratic = _polynomial(delta, lam, 1)[2], _polynomial(delta, lam, 2)[2]
    if quadratic <= 0:
        return 0.0 if line > 0 else 1.0
    return float(stats.f.sf((line - quadratic) / (quadratic / (delta.size - 3)), 1, delta.size - 3))


def lambda_crossing(delta, lam, level=0.95):
    """(F15): {estimate, low, high, se, degree, curvature_p, slope, residual_sd, dof} from the seeds
    (δ_i, λ_min,i) of one d; ``slope`` the fit's dλ_min/dδ at the crossing; NaN where the fit has no
    residual dof or no spread in δ, the estimate NaN where no falling root lies in the window."""
    delta, lam = np.asarray(delta, dtype=float), np.asarray(lam, dtype=float)
    out = dict.fromkeys(("estimate", "low", "high", "se", "curvature_p", "slope", "residual_sd"), math.nan)
    if np.unique(delta).size < 2 or delta.size < 3:
        return out | {"degree": 1, "dof": max(delta.size - 2, 0)}
    p_curved = curvature_p(delta, lam)
    q = 2 if p_curved < CURVATURE_LEVEL else 1
    dof = delta.size - q - 1
    coef, gram_inv, sse = _polynomial(delta, lam, q)
    s2 = sse / dof
    out |= {"degree": q, "dof": dof, "curvature_p": p_curved, "residual_sd": math.sqrt(s2)}
    span = float(np.ptp(delta))
    window = (delta.min() - span, delta.max() + span)
    falling = [
        r.real
        for r in np.roots(coef[::-1])
        if abs(r.imag) < 1e-12
        and window[0] <= r.real <= window[1]
        and np.polyval(np.polyder(coef[::-1]), r.real) < 0
    ]
    if not falling:
        return out
    root = min(falling, key=lambda r: abs(r - 0.5 * (delta.min() + delta.max())))
    t2 = float(stats.t.ppf(0.5 + level / 2, dof)) ** 2

    def excess(x):  # μ̂(δ)² − t² s² x(δ)ᵀ(XᵀX)⁻¹x(δ): ≤ 0 inside Fieller's set
        v = np.vander(np.atleast_1d(x), q + 1, increasing=True)
        return (v @ coef) ** 2 - t2 * s2 * np.einsum("ij,jk,ik->i", v, gram_inv, v)

    out |= {"estimate": float(root), "slope": float(np.polyval(np.polyder(coef[::-1]), root))}
    for edge, key in ((window[0], "low"), (window[1], "high")):
        grid = np.linspace(root, edge, 401)
        outside = np.flatnonzero(excess(grid) > 0)
        if outside.size:  # the first point past the set's edge brackets it
            j = outside[0]
            out[key] = float(optimize.brentq(lambda x: excess(x)[0], grid[j - 1], grid[j], xtol=1e-9))
    if math.isfinite(out["low"]) and math.isfinite(out["high"]):
        out["se"] = (out["high"] - out["low"]) / (2 * math.sqrt(t2))
    return out


def spectral_threshold_rows(activation, cells, level=0.95):
    """Per d of the plateau cells ({d, delta, eigenvalues[seed, k], overlap2[seed, k]}): the aligned
    crossing δ_spec(d) (F14) and the λ_min crossing (F15) over every seed of that d, with the seeds
    per cell, the points (δ × seed) used, the δ grid and the aligned fraction at each δ."""
    rows = []
    for d in sorted({int(c["d"]) for c in cells}):
        at_d = sorted((c for c in cells if int(c["d"]) == d), key=lambda c: float(c["delta"]))
        delta = np.concatenate([np.full(c["eigenvalues"].shape[0], float(c["delta"])) for c in at_d])
        eig = np.concatenate([c["eigenvalues"] for c in at_d])
        ov2 = np.concatenate([c["overlap2"] for c in at_d])
        keep = np.isfinite(eig[:, 0])
        delta, eig, ov2 = delta[keep], eig[keep], ov2[keep]
        aligned = np.any(negative_aligned(eig, ov2), axis=1)
        spec = aligned_crossing(delta, aligned, level)
        lam = lambda_crossing(delta, eig[:, 0], level)
        grid = np.unique(delta)
        rows.append(
            {
                "activation": activation,
                "d": d,
                "seeds": min(c["eigenvalues"].shape[0] for c in at_d),
                "points": int(delta.size),
                "deltas": ",".join(f"{x:g}" for x in grid),
                "aligned_fraction": ",".join(f"{aligned[delta == x].mean():.2f}" for x in grid),
                **{f"delta_spec{suffix}": spec[key] for key, suffix in _COLUMNS},
                "aligned_scale": spec["scale"],
                **{f"lambda_crossing{suffix}": lam[key] for key, suffix in _COLUMNS},
                "lambda_degree": lam["degree"],
                "lambda_curvature_p": lam["curvature_p"],
                "lambda_slope": lam["slope"],
                "lambda_residual_sd": lam["residual_sd"],
            }
        )
    return rows


_COLUMNS = (("estimate", ""), ("low", "_low"), ("high", "_high"), ("se", "_se"))


def trend(rows, estimator="delta_spec"):
    """Across the d of one activation's rows: the weighted mean of the ``estimator``'s crossings
    ("delta_spec", (F14), or "lambda_crossing", (F15)) ± s.e. with the χ² p-value of a constant, and
    (three d or more) the slope per doubling ± s.e., weights 1/σ_d² from the rows' ``<estimator>_se``
    (half the interval over its quantile); NaN where no d has a closed interval."""
    d = np.array([r["d"] for r in rows], dtype=float)
    y = np.array([r[estimator] for r in rows], dtype=float)
    sigma = np.array([r[f"{estimator}_se"] for r in rows], dtype=float)
    out = dict.fromkeys(("mean", "mean_err", "constant_p", "slope_per_doubling", "slope_err"), math.nan)
    keep = np.isfinite(y) & np.isfinite(sigma) & (sigma > 0)
    if keep.sum() < 1:
        return out
    d, y, w = d[keep], y[keep], 1 / sigma[keep] ** 2
    mean = float(np.sum(w * y) / np.sum(w))
    chi2 = float(np.sum(w * (y - mean) ** 2))
    out |= {"mean": mean, "mean_err": float(1 / np.sqrt(np.sum(w)))}
    out["constant_p"] = float(stats.chi2.sf(chi2, d.size - 1)) if d.size > 1 else math.nan
    if d.size >= 3:
        x = np.column_stack([np.ones(d.size), np.log2(d / d.min())])
        cov = np.linalg.inv(x.T @ (w[:, None] * x))
        slope = float((cov @ x.T @ (w * y))[1])
        out |= {"slope_per_doubling": slope, "slope_err": float(np.sqrt(cov[1, 1]))}
    return out
