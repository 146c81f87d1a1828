"""The design table (docs/design.md): per design its theory thresholds and, where a sweep measures
it, GD's δ₅₀; the rank correlation between the two; and the sweeps the theory asks for next.

Theory and GD are computed independently (the design jobs never read a sweep); this module reads
both.  The theory's ranking is by δ_NN(∞) (designs without one rank last, by status).  Spearman's ρ
between δ_NN(∞) and GD's δ₅₀ at the largest swept d runs over the designs that have both.
"""

import numpy as np
from scipy import stats

from featlearn.analysis.theory_tables import delta_nn_curve, delta_nn_se, minimum_over_time


def theory_row(name, settings, out):
    """One design's theory: δ_NN(∞) with status and AT value, min_t δ_NN(t) ± s.e. and its t."""
    row = {"design": name, "activation": settings.activation, "a": settings.a, "b": settings.b}
    row |= {"r0": settings.r0, "lr": settings.lr, "link": settings.link}
    row["delta_nn_inf"] = float(out["delta_nn_inf"])
    row["long_time_status"] = str(out["status"])
    row["at_value"] = float(out["at_value"])
    row["at_stable"] = bool(out["at_value"] < 1.0)
    if "dmft_margin" in out:
        dm = {key.removeprefix("dmft_"): value for key, value in out.items() if key.startswith("dmft_")}
        curve, statuses = delta_nn_curve(dm)
        best = minimum_over_time(curve, delta_nn_se(dm), statuses)
    else:
        best = (np.nan, np.nan, -1)
    row["delta_nn_min"], row["delta_nn_min_se"], row["delta_nn_argmin_t"] = best
    return row


def theory_ranking(rows):
    """Design names ordered by δ_NN(∞), lowest first; those without one last (in table order)."""
    found = sorted((r for r in rows if np.isfinite(r["delta_nn_inf"])), key=lambda r: r["delta_nn_inf"])
    return [r["design"] for r in found] + [r["design"] for r in rows if not np.isfinite(r["delta_nn_inf"])]


def swept_designs(rows, best, worst):
    """The designs the theory asks GD to sweep: the ``best`` lowest δ_NN(∞) and the ``worst`` highest
    among those that have one (each design once)."""
    ranked = [name for name in theory_ranking(rows) if np.isfinite(_by_name(rows)[name]["delta_nn_inf"])]
    chosen = ranked[:best] + (ranked[-worst:] if worst else [])
    return list(dict.fromkeys(chosen))


def _by_name(rows):
    return {r["design"]: r for r in rows}


def add_gd_thresholds(rows, thresholds):
    """Add δ₅₀ ± s.e. per d (``delta50_d<d>``, NaN where not swept or not fitted) from the threshold
    rows of the sweeps that name a design (``thresholds``: design → rows of
    ``<sweep>_thresholds.csv``)."""
    by_name = _by_name(rows)
    ds = sorted({int(t["d"]) for table in thresholds.values() for t in table})
    for row in rows:
        for d in ds:
            row.setdefault(f"delta50_d{d}", np.nan)
            row.setdefault(f"delta50_d{d}_err", np.nan)
    for design, table in thresholds.items():
        for t in table:
            d = int(t["d"])
            by_name[design][f"delta50_d{d}"] = t["delta50"]
            by_name[design][f"delta50_d{d}_err"] = t["delta50_err"]
    return rows


def rank_correlation(rows, d):
    """(Spearman's ρ, p-value, number of designs) between δ_NN(∞) and GD's δ₅₀ at dimension ``d``."""
    pairs = [
        (r["delta_nn_inf"], r[f"delta50_d{d}"])
        for r in rows
        if np.isfinite(r["delta_nn_inf"]) and np.isfinite(r.get(f"delta50_d{d}", np.nan))
    ]
    if len(pairs) < 3:
        return np.nan, np.nan, len(pairs)
    x, y = np.array(pairs).T
    res = stats.spearmanr(x, y)
    return float(res.statistic), float(res.pvalue), len(pairs)


def sweep_overlay(rows, designs, spec, sweeps_spec, link):
    """The config overlay of GD sweeps for ``designs`` (``design.sweeps``: d, trials and the δ grid
    as multiples of each design's δ_NN(∞)), one sweep ``design_<name>`` per design carrying its
    conventions (``spec``: ``design.designs``), the designer's target ``link`` and ``design: <name>``."""
    by_name, out = _by_name(rows), {}
    for name in designs:
        delta_inf = by_name[name]["delta_nn_inf"]
        grid = sorted({float(f"{f * delta_inf:.3g}") for f in sweeps_spec["factors"]})
        out[f"design_{name}"] = {
            **spec[name],
            "link": link,
            "design": name,
            "figure": f"extra_phase_design_{name}",
            "d": list(sweeps_spec["d"]),
            "delta": grid,
            "trials": sweeps_spec["trials"],
        }
    return {"sweeps": out}


def family_row(family):
    """The family's minimiser (``design_family`` output) as a design row (no DMFT, no sweep)."""
    best = family["best"]
    settings = family["settings"]
    return {
        "design": f"family({family['parameter']}={best['alpha']:.4g})",
        "activation": family["expression"].replace(family["parameter"], f"{best['alpha']:.4g}"),
        "a": settings["a"],
        "b": settings["b"],
        "r0": np.nan,
        "lr": np.nan,
        "link": settings["link"],
        "delta_nn_inf": float(best["delta_nn_inf"]),
        "long_time_status": best["status"],
        "at_value": float(best["at_value"]),
        "at_stable": bool(best["at_value"] < 1.0),
        "delta_nn_min": np.nan,
        "delta_nn_min_se": np.nan,
        "delta_nn_argmin_t": -1,
    }


def finish_rows(rows, delta_alg, thresholds, d):
    """δ_alg, the theory's rank, GD's δ₅₀ per d of the swept designs and Spearman's ρ at ``d`` on
    every row (one table)."""
    order = theory_ranking(rows)
    for r in rows:
        r["delta_alg"] = delta_alg
        r["theory_rank"] = order.index(r["design"]) + 1
    add_gd_thresholds(rows, thresholds)
    rho, p, count = rank_correlation(rows, d)
    for r in rows:
        r |= {"spearman_rho": rho, "spearman_p": p, "spearman_designs": count, "spearman_d": d}
    return rows
