"""The plateau's own spectral threshold at finite d: δ_spec(d), where the smallest eigenvalue of the
Hessian at the converged restricted-GD plateau crosses zero (docs/finite_size.md, eq. (F14)).

Per (d, δ, seed) the plateau cells (``hessian.plateau``) record λ_min and the overlap² of its
eigenvector with the hard subspace.  Per d, λ_min is regressed on δ over that d's cells (a narrow
grid around the crossing: the line is a local description),

    λ_min = α + β δ + ε,   ε ~ N(0, s²)  (s² the pooled residual variance, n − 2 dof),        (F14)

and δ_spec(d) = −α/β is the zero crossing, with Fieller's interval: the δ whose predicted mean
α̂ + β̂ δ is within t_{n−2}(L) standard errors of 0,

    (α̂ + β̂ δ)² ≤ t² s² x(δ)ᵀ(XᵀX)⁻¹x(δ),   x(δ) = (1, δ),

a quadratic inequality in δ (open on a side when the slope is not significant).  Across d the
crossings are summarised by weighted least squares with σ_d = (high − low)/(2 t): their weighted
mean (the constant law) with its χ² p-value, and the slope per doubling of d (the linear law in
log₂ d, three d or more), each against δ_NN(∞) in units of its error.  Whether the
crossing is the aligned outlier is read off the same cells: the fraction of seeds above δ_spec whose
negative λ_min has an aligned eigenvector (``criteria.negative_aligned``).  δ_spec answers "is
δ_NN(∞) the plateau's spectral transition?" separately from "does GD's threshold reach it?".
"""

import math

import numpy as np
from scipy import stats

from featlearn.analysis.criteria import negative_aligned


def crossing(delta, lam, level=0.95):
    """(F14): (δ_spec, low, high, slope, s) from the cells (δ_i, λ_min,i) of one d; NaN where the
    regression has fewer than three points or no spread in δ; low/high NaN on an open side."""
    delta, lam = np.asarray(delta, dtype=float), np.asarray(lam, dtype=float)
    n = delta.size
    if n < 3 or np.ptp(delta) == 0:
        return (math.nan,) * 5
    design = np.column_stack([np.ones(n), delta])
    gram_inv = np.linalg.inv(design.T @ design)
    alpha, beta = gram_inv @ design.T @ lam
    s2 = float(np.sum((lam - design @ [alpha, beta]) ** 2) / (n - 2))
    t2 = float(stats.t.ppf(0.5 + level / 2, n - 2)) ** 2
    # (α + βδ)² − t² s² (g00 + 2 g01 δ + g11 δ²) ≤ 0, i.e. a δ² + b δ + c ≤ 0
    a = beta**2 - t2 * s2 * gram_inv[1, 1]
    b = 2 * (alpha * beta - t2 * s2 * gram_inv[0, 1])
    c = alpha**2 - t2 * s2 * gram_inv[0, 0]
    estimate = -alpha / beta if beta != 0 else math.nan
    disc = b * b - 4 * a * c
    if a > 0 and disc >= 0:  # a bounded interval
        roots = sorted(((-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)))
        low, high = roots
    else:  # the slope is not significant: the set is unbounded
        low = high = math.nan
    return float(estimate), float(low), float(high), float(beta), math.sqrt(s2)


def spectral_threshold_rows(activation, cells, level=0.95):
    """Per d of the plateau cells ({d, delta, eigenvalues[seed, k], overlap2[seed, k]}): δ_spec(d)
    with its Fieller interval (F14) over every seed of that d (the scan's δ grid is narrow, around
    the crossing), the slope dλ_min/dδ, the residual spread, the seeds and δ used, and the fraction
    of seeds above δ_spec whose λ_min is a negative aligned outlier."""
    rows = []
    for d in sorted({int(c["d"]) for c in cells}):
        at_d = [c for c in cells if int(c["d"]) == d]
        delta = np.concatenate([np.full(c["eigenvalues"].shape[0], float(c["delta"])) for c in at_d])
        lam = np.concatenate([c["eigenvalues"][:, 0] for c in at_d])
        ov2 = np.concatenate([c["overlap2"][:, 0] for c in at_d])
        estimate, low, high, slope, spread = crossing(delta, lam, level)
        above = delta > estimate if math.isfinite(estimate) else np.zeros(delta.size, bool)
        aligned = negative_aligned(lam[above], ov2[above])
        rows.append(
            {
                "activation": activation,
                "d": d,
                "delta_spec": estimate,
                "delta_spec_low": low,
                "delta_spec_high": high,
                "slope": slope,
                "residual_sd": spread,
                "seeds": int(delta.size),
                "deltas": ",".join(f"{x:g}" for x in sorted(set(delta))),
                "aligned_above": float(np.mean(aligned)) if aligned.size else math.nan,
            }
        )
    return rows


def trend(rows):
    """Across the d of one activation's rows (F14): the weighted mean of δ_spec(d) ± s.e. with the
    χ² p-value of a constant, and (three d or more) the slope per doubling ± s.e., weights from
    the Fieller intervals (σ_d = half their width / 1.96); NaN where a d has no closed interval."""
    d = np.array([r["d"] for r in rows], dtype=float)
    y = np.array([r["delta_spec"] for r in rows], dtype=float)
    sigma = np.array([(r["delta_spec_high"] - r["delta_spec_low"]) / (2 * 1.96) for r in rows])
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
