"""The plateau GD reaches against the static fixed point, observable by observable, as d → ∞, and
the threshold of the plateau's own state (docs/outlier.md, "The plateau against the fixed point",
eqs. (O19)–(O21)).

Per (d, δ) the plateau cells (``hessian.plateau``: restricted GD to ‖∇R̂‖ ≤ grad_tol) give, per
seed, ‖θ‖², the training loss, the Hessian's bulk edge, λ_min and its overlap² with θ*, and the
margin (O8) of the outlier equations fed with the state's own law of (g², w).  Each observable's
seed mean m_d (standard error s_d) is extrapolated with the stated finite-d law

    m_d = m_∞ + b/d,                                                                       (O19)

by weighted least squares (weights 1/s_d²; Gaussian likelihood with known s_d, so the profile
interval of m_∞ is m̂_∞ ± 1.96 se), with a χ² goodness-of-fit p-value when there are more d than
two.  The fixed point's value v at the same δ (with its numerical error e) is then judged

    agrees     |m̂_∞ − v| ≤ 1.96 √(se² + e²),      disagrees otherwise,                    (O20)

and "undetermined" with one d, or where (O19) is rejected (p < 0.05); with two d the verdict says
that the law is unchecked.  The gap m̂_∞ − v is reported with its interval either way.

The plateau's threshold δ_NN^GD(d): per d, the zero in δ of the semi-empirical margin over that d's
seeds (``spectral_threshold.lambda_crossing``: a line or a quadratic in δ picked by a curvature
test, Fieller's interval), extrapolated to d → ∞ by (O19) with σ_d its interval's s.e.:

    δ_NN^GD(∞) = lim_d δ_NN^GD(d),   against δ_NN^RS(∞) (the fixed point's) and δ_spec(d).   (O21)
"""

import math

import numpy as np
from scipy import stats

from featlearn.analysis.spectral_threshold import lambda_crossing

Z95 = 1.959963984540054
"""The 97.5 % normal quantile (95 % two-sided interval)."""

GOF_LEVEL = 0.05
"""(O19) is rejected where its χ² goodness-of-fit p-value is below this."""

OBSERVABLES = ("norm2", "train_loss", "bulk_edge", "lambda_min", "overlap2")


def seed_values(cell, observable):
    """Per seed of a plateau cell, the ``observable`` (``OBSERVABLES``), converged seeds only."""
    values = {
        "norm2": np.asarray(cell["final_norm"], float) ** 2,
        "train_loss": np.asarray(cell["final_train_loss"], float),
        "bulk_edge": np.asarray(cell["bulk_edge"], float),
        "lambda_min": np.asarray(cell["eigenvalues"], float)[:, 0],
        "overlap2": np.asarray(cell["overlap2"], float)[:, 0],
    }[observable]
    converged = np.asarray(cell.get("converged", np.ones(values.size, bool)), bool)
    return values[converged & np.isfinite(values)]


def fixed_point_value(fp, delta, observable):
    """The fixed point's value of ``observable`` at δ (its grid must hold δ): q, E[ℓ], the bulk edge,
    λ_min = the outlier where there is one (else the bulk edge) and the outlier's overlap² (0 without
    one); NaN where the fixed point has no solution there."""
    i = np.flatnonzero(np.isclose(np.asarray(fp["delta"], float), delta))
    if i.size == 0:
        raise ValueError(f"delta={delta} is not on the fixed point's grid {list(fp['delta'])}")
    i = int(i[0])
    outlier = float(fp["outlier"][i])
    return {
        "norm2": float(fp["q"][i]),
        "train_loss": float(fp["train_loss"][i]),
        "bulk_edge": float(fp["bulk_edge"][i]),
        "lambda_min": outlier if math.isfinite(outlier) else float(fp["bulk_edge"][i]),
        "overlap2": float(fp["overlap2"][i]) if math.isfinite(outlier) else 0.0,
    }[observable]


def numerical_error(fp, observable):
    """The fixed point's numerical error of ``observable``: its change between the two quadrature
    levels of the refinement study (at δ_ref; 0 where the study is absent)."""
    key = {"norm2": "q", "lambda_min": "outlier"}.get(observable, observable)
    values = fp.get(f"refine_{key}")
    if values is None or not np.all(np.isfinite(values)):
        return 0.0
    return float(abs(values[-1] - values[-2]))


def extrapolate(d, mean, se):
    """(O19) by weighted least squares: {limit, limit_se, slope, gof_p, n_d}; the limit NaN with
    fewer than two d, gof_p NaN with two."""
    d, mean, se = (np.asarray(v, float) for v in (d, mean, se))
    keep = np.isfinite(mean) & np.isfinite(se) & (se > 0)
    out = {
        "limit": math.nan,
        "limit_se": math.nan,
        "slope": math.nan,
        "gof_p": math.nan,
        "n_d": int(keep.sum()),
    }
    if keep.sum() < 2:
        return out
    x = np.column_stack([np.ones(keep.sum()), 1.0 / d[keep]])
    w = 1.0 / se[keep] ** 2
    cov = np.linalg.inv(x.T @ (w[:, None] * x))
    coef = cov @ x.T @ (w * mean[keep])
    out |= {"limit": float(coef[0]), "limit_se": float(math.sqrt(cov[0, 0])), "slope": float(coef[1])}
    if keep.sum() > 2:
        chi2 = float(np.sum(w * (mean[keep] - x @ coef) ** 2))
        out["gof_p"] = float(stats.chi2.sf(chi2, keep.sum() - 2))
    return out


def verdict(limit, limit_se, theory, error):
    """(O20): (verdict, gap, gap_low, gap_high)."""
    if not (math.isfinite(limit) and math.isfinite(theory)):
        return "undetermined", math.nan, math.nan, math.nan
    gap, half = limit - theory, Z95 * math.hypot(limit_se, error)
    return ("agrees" if abs(gap) <= half else "disagrees"), gap, gap - half, gap + half


def observable_rows(activation, cells, fp):
    """Per δ and observable: the seed means per d, the (O19) limit with its interval, the fixed
    point's value with its numerical error, the gap and the (O20) verdict."""
    rows = []
    ds = sorted({int(c["d"]) for c in cells})
    for delta in sorted({float(c["delta"]) for c in cells}):
        at = {int(c["d"]): c for c in cells if float(c["delta"]) == delta}
        for observable in OBSERVABLES:
            values = {d: seed_values(at[d], observable) if d in at else np.array([]) for d in ds}
            mean = [v.mean() if v.size else math.nan for v in values.values()]
            se = [v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else math.nan for v in values.values()]
            fit = extrapolate(ds, mean, se)
            theory, error = fixed_point_value(fp, delta, observable), numerical_error(fp, observable)
            word, gap, low, high = verdict(fit["limit"], fit["limit_se"], theory, error)
            if fit["n_d"] > 2 and fit["gof_p"] < GOF_LEVEL:
                word = "undetermined (law rejected)"
            elif fit["n_d"] == 2 and word != "undetermined":
                word += " (law unchecked: 2 d)"
            row = {"activation": activation, "delta": delta, "observable": observable}
            for d, m, s, v in zip(ds, mean, se, values.values(), strict=True):
                row |= {f"d{d}_mean": m, f"d{d}_se": s, f"d{d}_seeds": int(v.size)}
            row |= {
                "limit": fit["limit"],
                "limit_low": fit["limit"] - Z95 * fit["limit_se"],
                "limit_high": fit["limit"] + Z95 * fit["limit_se"],
                "slope": fit["slope"],
                "gof_p": fit["gof_p"],
                "fixed_point": theory,
                "fixed_point_error": error,
                "gap": gap,
                "gap_low": low,
                "gap_high": high,
                "verdict": word,
            }
            rows.append(row)
    return rows


def plateau_threshold_rows(activation, cells, delta_nn_rs, delta_spec=None):
    """Per d, δ_NN^GD(d) (the semi-empirical margin's zero with its Fieller interval) beside
    (``delta_spec``: {d: (estimate, low, high)}) δ_spec(d) and its distance to δ_NN^GD(∞) in units
    of their combined s.e.; a last row ``d = "inf"`` with the (O19) limit δ_NN^GD(∞), its interval
    and goodness of fit; every row beside δ_NN^RS(∞)."""
    rows, ds, est, se = [], [], [], []
    for d in sorted({int(c["d"]) for c in cells}):
        at_d = [c for c in cells if int(c["d"]) == d and "semi_empirical_margin" in c]
        delta = np.concatenate(
            [np.full(np.size(c["semi_empirical_margin"]), float(c["delta"])) for c in at_d] or [[]]
        )
        margin = np.concatenate([np.asarray(c["semi_empirical_margin"], float) for c in at_d] or [[]])
        keep = np.isfinite(margin)
        fit = lambda_crossing(delta[keep], margin[keep])
        spec = (delta_spec or {}).get(d, (math.nan,) * 3)
        rows.append(
            {
                "activation": activation,
                "d": str(d),
                "delta_nn_gd": fit["estimate"],
                "delta_nn_gd_low": fit["low"],
                "delta_nn_gd_high": fit["high"],
                "degree": fit["degree"],
                "delta_nn_rs": delta_nn_rs,
                "delta_spec": spec[0],
                "delta_spec_low": spec[1],
                "delta_spec_high": spec[2],
            }
        )
        ds.append(d)
        est.append(fit["estimate"])
        se.append(fit["se"])
    fit = extrapolate(ds, est, se)
    low, high = fit["limit"] - Z95 * fit["limit_se"], fit["limit"] + Z95 * fit["limit_se"]
    for row in rows:  # δ_spec(d) against δ_NN^GD(∞), in units of their combined error
        spec_se = (row["delta_spec_high"] - row["delta_spec_low"]) / (2 * Z95)
        row["spec_minus_gd_inf"] = row["delta_spec"] - fit["limit"]
        row["spec_minus_gd_inf_z"] = row["spec_minus_gd_inf"] / math.hypot(spec_se, fit["limit_se"])
    rows.append(
        {
            "activation": activation,
            "d": "inf",
            "delta_nn_gd": fit["limit"],
            "delta_nn_gd_low": low,
            "delta_nn_gd_high": high,
            "degree": math.nan,
            "delta_nn_rs": delta_nn_rs,
            "delta_spec": math.nan,
            "delta_spec_low": math.nan,
            "delta_spec_high": math.nan,
            "spec_minus_gd_inf": math.nan,
            "spec_minus_gd_inf_z": math.nan,
            "gof_p": fit["gof_p"],
        }
    )
    return rows
