"""The plateau GD reaches against the static fixed point, observable by observable, as d → ∞, and
the threshold of the plateau's own state (docs/outlier.md, "The plateau against the fixed point",
eqs. (O19)–(O21)).

Per (d, δ) the plateau cells (``hessian.plateau``: restricted GD to ‖∇R̂‖ ≤ grad_tol) give, per
seed, ‖θ‖², the training loss, the Hessian's bulk edge, λ_min and its overlap² with θ*, and the
margin (O8) of the outlier equations fed with the state's own law of (g², w).  Each observable's
seed mean m_d (standard error s_d) is extrapolated under each finite-d law of the family

    m_d = m_∞ + b d^(−γ),   γ ∈ {1, 2/3, 1/2}  (``LAWS``),                                 (O19)

by weighted least squares (weights 1/s_d²; Gaussian likelihood with known s_d, so the profile
interval of m_∞ is m̂_∞ ± 1.96 se), with a χ² goodness-of-fit p-value when there are more d than
two.  A law is admissible unless its fit is rejected (p < 0.05).  The fixed point's value v at the
same δ (with its numerical error e) is judged under each admissible law

    agrees     |m̂_∞ − v| ≤ 1.96 √(se² + e²),      disagrees otherwise,                    (O20)

and the verdict is the one every admissible law gives, labelled "under the laws" (conditional on the
family: no finite d fix a limit by themselves, docs/finite_size.md (F16)); "undetermined" where they
differ (the data do not identify the approach law, and the limit depends on it), and, as every limit
is judged (``limit_status``), with fewer than three d (two d reject no law), where every law is
rejected, or where the no-limit alternative m_d = a + b log₂ d (growth in ln d) fits; no level is then
reported.  The gap m̂_∞ − v is reported under
1/d (the leading correction of a smooth observable) and its interval as the union over the admissible
laws.

The plateau's threshold δ_NN^GD(d): per d, the zero in δ of the semi-empirical margin over that d's
seeds (``spectral_threshold.lambda_crossing``: a line or a quadratic in δ picked by a curvature
test, Fieller's interval), extrapolated to d → ∞ under the same family with σ_d its interval's s.e.:

    δ_NN^GD(∞) = lim_d δ_NN^GD(d),   against δ_NN^RS(∞) (the fixed point's) and δ_spec(d),   (O21)

its interval the union over the admissible laws, and δ_spec(d) set against each law's limit.
"""

import math

import numpy as np
from scipy import stats

from featlearn.analysis.criteria import Z95
from featlearn.analysis.spectral_threshold import lambda_crossing

GOF_LEVEL = 0.05
"""(O19) is rejected where its χ² goodness-of-fit p-value is below this."""

LAWS = {"inv_d": 1.0, "inv_d2_3": 2.0 / 3.0, "inv_sqrt_d": 0.5}
"""The exponents γ of (O19) by column tag: 1/d (a smooth observable's leading correction), d^(−2/3)
(the Tracy–Widom scale of a spectral edge) and d^(−1/2) (the scale of a seed's fluctuation)."""

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


def weighted_line(x, mean, se):
    """Weighted least squares of ``mean`` on (1, ``x``), weights 1/se²: {limit (the intercept),
    limit_se, slope, gof_p, n_d, admissible}; NaN with fewer than two usable points, gof_p (χ² on
    n − 2 dof) NaN with two; admissible unless the fit is missing or rejected (gof_p < ``GOF_LEVEL``)."""
    x, mean, se = (np.asarray(v, float) for v in (x, mean, se))
    keep = np.isfinite(mean) & np.isfinite(se) & (se > 0)
    out = {
        "limit": math.nan,
        "limit_se": math.nan,
        "slope": math.nan,
        "gof_p": math.nan,
        "n_d": int(keep.sum()),
        "admissible": False,
    }
    if keep.sum() < 2:
        return out
    design = np.column_stack([np.ones(keep.sum()), x[keep]])
    w = 1.0 / se[keep] ** 2
    cov = np.linalg.inv(design.T @ (w[:, None] * design))
    coef = cov @ design.T @ (w * mean[keep])
    out |= {"limit": float(coef[0]), "limit_se": float(math.sqrt(cov[0, 0])), "slope": float(coef[1])}
    if keep.sum() > 2:
        chi2 = float(np.sum(w * (mean[keep] - design @ coef) ** 2))
        out["gof_p"] = float(stats.chi2.sf(chi2, keep.sum() - 2))
    out["admissible"] = not out["gof_p"] < GOF_LEVEL
    return out


def extrapolate(d, mean, se, exponent=1.0):
    """(O19) with γ = ``exponent``: ``weighted_line`` on x = d^(−γ), whose intercept is m_∞."""
    return weighted_line(np.asarray(d, float) ** -exponent, mean, se)


def growth_fit(d, mean, se):
    """The no-limit alternative of (O21): m_d = a + b log₂ d (growth in ln d without a limit),
    ``weighted_line`` on x = log₂ d (its "limit" is the intercept a, not a limit)."""
    return weighted_line(np.log2(np.asarray(d, float)), mean, se)


def limit_status(fits, growth):
    """(O21) judged as every limit is (docs/finite_size.md, (F9), (F16)): "identified under the laws"
    (conditional on (O19)'s family) only with three d or more, some law of ``fits`` admissible and the
    no-limit ``growth`` rejected; else "undetermined" with the reason."""
    n_d = max(f["n_d"] for f in fits.values())
    if n_d < 3:
        return f"undetermined ({n_d} d: no law can be rejected)"
    if not any(f["admissible"] for f in fits.values()):
        return "undetermined (every law rejected)"
    if growth["admissible"]:
        return f"undetermined (growth in ln d fits, p = {growth['gof_p']:.2g})"
    return "identified under the laws"


def law_fits(d, mean, se):
    """(O19) under every law of ``LAWS``: {tag: ``extrapolate`` under that γ}."""
    return {tag: extrapolate(d, mean, se, gamma) for tag, gamma in LAWS.items()}


def union_interval(fits):
    """The union of the admissible laws' 95 % intervals of m_∞, (low, high); NaN where none is."""
    sides = [
        (f["limit"] - Z95 * f["limit_se"], f["limit"] + Z95 * f["limit_se"])
        for f in fits.values()
        if f["admissible"]
    ]
    if not sides:
        return math.nan, math.nan
    return min(lo for lo, _ in sides), max(hi for _, hi in sides)


def verdict(limit, limit_se, theory, error):
    """(O20) under one law: (verdict, gap, gap_low, gap_high)."""
    if not (math.isfinite(limit) and math.isfinite(theory)):
        return "undetermined", math.nan, math.nan, math.nan
    gap, half = limit - theory, Z95 * math.hypot(limit_se, error)
    return ("agrees" if abs(gap) <= half else "disagrees"), gap, gap - half, gap + half


def law_robust_verdict(fits, growth, theory, error):
    """(O20) over the admissible laws of ``fits`` (``law_fits``), judged as every limit is
    (``limit_status``: three d or more, some law admissible, the no-limit ``growth`` rejected; else
    that status and no gap): (verdict, gap under 1/d (NaN where 1/d is not admissible), the union of
    the admissible laws' gap intervals).  The verdict every admissible law gives, labelled "under the
    laws" (conditional on (O19): no finite d fix a limit by themselves, docs/finite_size.md (F16));
    "undetermined (laws disagree)" where they differ."""
    status = limit_status(fits, growth)
    if not math.isfinite(theory):
        return "undetermined", math.nan, math.nan, math.nan
    if status != "identified under the laws":
        return status, math.nan, math.nan, math.nan
    judged = {
        tag: verdict(f["limit"], f["limit_se"], theory, error) for tag, f in fits.items() if f["admissible"]
    }
    words = {word for word, *_ in judged.values()}
    gap = judged["inv_d"][1] if "inv_d" in judged else math.nan
    low, high = min(j[2] for j in judged.values()), max(j[3] for j in judged.values())
    if len(words) > 1:
        return "undetermined (laws disagree)", gap, low, high
    return f"{words.pop()} under the laws", gap, low, high


def law_columns(fits):
    """Per law of ``fits``: its limit with its 95 % interval and goodness of fit, as table columns."""
    row = {}
    for tag, f in fits.items():
        row |= {
            f"limit_{tag}": f["limit"],
            f"limit_{tag}_low": f["limit"] - Z95 * f["limit_se"],
            f"limit_{tag}_high": f["limit"] + Z95 * f["limit_se"],
            f"gof_p_{tag}": f["gof_p"],
        }
    return row


def reported_limits(fits, identified):
    """The levels a row may carry: ``law_columns`` and the union interval (``union_interval``), every
    level NaN unless the limit is ``identified`` under the laws (``limit_status``); the goodness of
    fit of each law stays."""
    columns, union = law_columns(fits), union_interval(fits)
    if identified:
        return columns, union
    return {k: (v if k.startswith("gof_p_") else math.nan) for k, v in columns.items()}, (math.nan, math.nan)


def observable_rows(activation, cells, fp):
    """Per δ and observable: the seed means per d, the limit under each law of (O19) with its
    interval, the 1/d law's line (limit, slope, goodness of fit), the fixed point's value with its
    numerical error, the gap and the law-robust (O20) verdict."""
    rows = []
    ds = sorted({int(c["d"]) for c in cells})
    for delta in sorted({float(c["delta"]) for c in cells}):
        at = {int(c["d"]): c for c in cells if float(c["delta"]) == delta}
        for observable in OBSERVABLES:
            values = {d: seed_values(at[d], observable) if d in at else np.array([]) for d in ds}
            mean = [v.mean() if v.size else math.nan for v in values.values()]
            se = [v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else math.nan for v in values.values()]
            fits, growth = law_fits(ds, mean, se), growth_fit(ds, mean, se)
            theory, error = fixed_point_value(fp, delta, observable), numerical_error(fp, observable)
            word, gap, low, high = law_robust_verdict(fits, growth, theory, error)
            row = {"activation": activation, "delta": delta, "observable": observable}
            for d, m, s, v in zip(ds, mean, se, values.values(), strict=True):
                row |= {f"d{d}_mean": m, f"d{d}_se": s, f"d{d}_seeds": int(v.size)}
            identified = limit_status(fits, growth) == "identified under the laws"
            columns, (limit_low, limit_high) = reported_limits(fits, identified)
            row |= {
                "limit": fits["inv_d"]["limit"] if identified else math.nan,
                "slope": fits["inv_d"]["slope"],
                "gof_p": fits["inv_d"]["gof_p"],
                "limit_low": limit_low,
                "limit_high": limit_high,
                "laws": " ".join(tag for tag, f in fits.items() if f["admissible"]),
                **columns,
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
    (``delta_spec``: {d: (estimate, low, high)}) δ_spec(d) and its distance to each admissible law's
    limit δ_NN^GD(∞) in units of their combined s.e.; a last row ``d = "inf"`` with ``limit_status``
    and, only where that is "identified under the laws" (three d or more, growth in ln d rejected),
    the 1/d law's limit, the interval over the admissible laws and every law's limit (else NaN: the
    goodness of fit of each law and of the growth alternative only); every row beside δ_NN^RS(∞)."""
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
    fits, growth = law_fits(ds, est, se), growth_fit(ds, est, se)
    status = limit_status(fits, growth)
    identified = status == "identified under the laws"
    for row in rows:  # δ_spec(d) against each law's δ_NN^GD(∞), in units of their combined error
        spec_se = (row["delta_spec_high"] - row["delta_spec_low"]) / (2 * Z95)
        row["spec_minus_gd_inf"] = row["delta_spec"] - fits["inv_d"]["limit"] if identified else math.nan
        for tag, f in fits.items():
            z = (row["delta_spec"] - f["limit"]) / math.hypot(spec_se, f["limit_se"])
            row[f"spec_z_{tag}"] = z if identified and f["admissible"] else math.nan
    limits, (low, high) = reported_limits(fits, identified)
    inf_row = {
        "activation": activation,
        "d": "inf",
        "delta_nn_gd": fits["inv_d"]["limit"] if identified and fits["inv_d"]["admissible"] else math.nan,
        "delta_nn_gd_low": low,
        "delta_nn_gd_high": high,
        "degree": math.nan,
        "delta_nn_rs": delta_nn_rs,
        **dict.fromkeys(("delta_spec", "delta_spec_low", "delta_spec_high", "spec_minus_gd_inf"), math.nan),
        **{f"spec_z_{tag}": math.nan for tag in fits},
        "laws": " ".join(tag for tag, f in fits.items() if f["admissible"]),
        "limit_status": status,
        "gof_p_growth": growth["gof_p"],
        **limits,
    }
    return [*rows, inf_row]
