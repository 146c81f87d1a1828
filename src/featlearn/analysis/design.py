"""The design table (docs/design.md): per design its theory thresholds and, where a sweep measures
it, GD's δ₅₀; the rank correlation between the two; and the sweeps the theory asks for next.

Theory and GD are computed independently (the design jobs never read a sweep); this module reads
both.  The theory's ranking is by δ_NN(∞): designs whose crossing lies below the search bracket
(status ``below_bracket``) first, then the others by value, then those without one (``none``,
``unsolved``, and ``trained_layer``: a trained second layer) in table order.  Spearman's ρ between
δ_NN(∞) and GD's δ₅₀ at the largest swept d runs over the designs that have both.
"""

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from scipy import stats

from featlearn.analysis.theory_tables import delta_nn_curve, delta_nn_se, minimum_over_time
from featlearn.io.results import load_npz
from featlearn.model.catalogue import substitute
from featlearn.model.loss_choice import loss_name


def theory_row(name, settings, out):
    """One design's theory: its trained layers (``train``, comma-separated), δ_NN(∞) with status and
    AT value (``at_stable`` only where there is a root), the grid anchor (docs/design.md, eq. (Z8))
    with its status, min_t δ_NN(t) ± s.e. and its t, with ``delta_nn_min_status`` "below_grid" where some
    replica has its crossing below the DMFT's grid at some t ≥ 1 (the minimum is then an upper
    bound), "none" without a minimum."""
    row = {"design": name, "activation": settings.activation, "a": settings.a, "b": settings.b}
    row |= {"r0": settings.r0, "lr": settings.lr, "link": settings.link}
    row["loss"] = loss_name(settings)
    row["huber"] = np.nan if settings.huber is None else float(settings.huber)  # NaN: no threshold
    row["train"] = ",".join(settings.train)
    row["delta_nn_inf"] = float(out["delta_nn_inf"])
    row["long_time_status"] = str(out["status"])
    row["at_value"] = float(out["at_value"])
    row["at_stable"] = bool(out["at_value"] < 1.0) if np.isfinite(out["at_value"]) else ""
    row["grid_anchor"], row["grid_anchor_status"] = float(out["grid_anchor"]), str(out["grid_anchor_status"])
    if "dmft_margin" in out:
        dm = {key.removeprefix("dmft_"): value for key, value in out.items() if key.startswith("dmft_")}
        curve, statuses = delta_nn_curve(dm)
        best = minimum_over_time(curve, delta_nn_se(dm), statuses)
        below = any(status == "below_grid" for status in statuses[1:])
        status = "below_grid" if below else ("ok" if best[2] >= 0 else "none")
    else:
        best, status = (np.nan, np.nan, -1), "none"
    row["delta_nn_min"], row["delta_nn_min_se"], row["delta_nn_argmin_t"] = best
    row["delta_nn_min_status"] = status
    return row


def _rank_key(row):
    if row["long_time_status"] == "below_bracket":
        return -np.inf
    return row["delta_nn_inf"] if np.isfinite(row["delta_nn_inf"]) else np.inf


def load_theory_rows(paths, settings):
    """:func:`theory_row` of every design file ``results/design/theory/<name>.npz`` in ``paths``
    (``settings``: name → the design's settings as a dict)."""
    return [
        theory_row(Path(p).stem, SimpleNamespace(**settings[Path(p).stem]), load_npz(p)[0]) for p in paths
    ]


def theory_ranking(rows):
    """Design names in the theory's order (module docstring); Python's sort keeps ties in table order."""
    return [r["design"] for r in sorted(rows, key=_rank_key)]


def swept_designs(rows, sweeps):
    """The designs the theory asks GD to sweep (``sweeps``: ``design.sweeps``): the ``best`` lowest
    δ_NN(∞) and the ``worst`` highest among those that have one, then the designs of ``include``
    that have a grid anchor (a trained second layer has no δ_NN(∞) to rank), each design once."""
    best, worst, include = sweeps["best"], sweeps["worst"], sweeps.get("include", ())
    by_name = _by_name(rows)
    ranked = [name for name in theory_ranking(rows) if np.isfinite(by_name[name]["delta_nn_inf"])]
    chosen = ranked[:best] + (ranked[-worst:] if worst else [])
    chosen += [name for name in include if np.isfinite(by_name[name]["grid_anchor"])]
    return list(dict.fromkeys(chosen))


def _by_name(rows):
    return {r["design"]: r for r in rows}


def add_gd_thresholds(rows, thresholds):
    """Add δ₅₀ ± s.e., the fit's status and the censored trials per d (``delta50_d<d>``, ``_err``,
    ``_status``, ``_censored``: trials that ended at the step budget uncertified, which the fit counts
    as failures; NaN and "not swept" where a design has no sweep) to ``rows``, from the threshold rows
    of the sweeps that name a design (``thresholds``: design → rows of ``<sweep>_thresholds.csv``)."""
    by_name = _by_name(rows)
    ds = sorted({int(t["d"]) for table in thresholds.values() for t in table})
    for row in rows:
        for d in ds:
            row |= {f"delta50_d{d}": np.nan, f"delta50_d{d}_err": np.nan, f"delta50_d{d}_status": "not swept"}
            row[f"delta50_d{d}_censored"] = np.nan
    for design, table in thresholds.items():
        for t in table:
            d = int(t["d"])
            by_name[design][f"delta50_d{d}"] = t["delta50"]
            by_name[design][f"delta50_d{d}_err"] = t["delta50_err"]
            by_name[design][f"delta50_d{d}_status"] = t["status"]
            by_name[design][f"delta50_d{d}_censored"] = t["censored"]


EXACT_PERMUTATIONS = 8
"""Up to this many designs the p-value of ρ enumerates every permutation; above it, 20000 random
ones (seeded)."""


def rank_correlation(rows, d):
    """(Spearman's ρ, two-sided permutation p-value, number of designs) between δ_NN(∞) and GD's δ₅₀
    at dimension ``d`` (NaN with fewer than three designs).  The permutation test is exact for the
    few designs a designer sweeps, where the t approximation of ``spearmanr``'s p-value is not."""
    pairs = [
        (r["delta_nn_inf"], r[f"delta50_d{d}"])
        for r in rows
        if np.isfinite(r["delta_nn_inf"]) and np.isfinite(r.get(f"delta50_d{d}", np.nan))
    ]
    if len(pairs) < 3:
        return np.nan, np.nan, len(pairs)
    x, y = np.array(pairs).T
    n = len(pairs)
    test = stats.permutation_test(
        (x,),
        lambda xs: stats.spearmanr(xs, y).statistic,
        permutation_type="pairings",
        n_resamples=math.factorial(n) if n <= EXACT_PERMUTATIONS else 20000,
        random_state=0,
    )
    return float(test.statistic), float(test.pvalue), n


def sweep_overlay(rows, designs, spec, sweeps_spec, link):
    """The config overlay of GD sweeps for ``designs`` (``design.sweeps``: d, trials and the δ grid
    as multiples of each design's grid anchor: its δ_NN(∞), or the fixed layer's for a trained
    second layer), one sweep ``design_<name>`` per design carrying its conventions (``spec``:
    ``design.designs``), the designer's target ``link`` and ``design: <name>``."""
    by_name, out = _by_name(rows), {}
    for name in designs:
        anchor = by_name[name]["grid_anchor"]
        grid = sorted({float(f"{f * anchor:.3g}") for f in sweeps_spec["factors"]})
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
        "activation": substitute(family["expression"], family["parameter"], float(f"{best['alpha']:.4g}")),
        "a": settings["a"],
        "b": settings["b"],
        "r0": np.nan,
        "lr": np.nan,
        "link": settings["link"],
        "loss": "square",
        "huber": np.nan,
        "train": "theta",
        "delta_nn_inf": float(best["delta_nn_inf"]),
        "long_time_status": best["status"],
        "at_value": float(best["at_value"]),
        "at_stable": bool(best["at_value"] < 1.0) if np.isfinite(best["at_value"]) else "",
        "grid_anchor": np.nan,
        "grid_anchor_status": "none",
        "delta_nn_min": np.nan,
        "delta_nn_min_se": np.nan,
        "delta_nn_argmin_t": -1,
        "delta_nn_min_status": "none",
    }


def finish_rows(rows, delta_alg, thresholds, d):
    """Add to ``rows`` δ_alg, the theory's rank, GD's δ₅₀ per d of the swept designs and Spearman's ρ
    at ``d`` (the same on every row: one table)."""
    order = theory_ranking(rows)
    for r in rows:
        r["delta_alg"] = delta_alg
        r["theory_rank"] = order.index(r["design"]) + 1
    add_gd_thresholds(rows, thresholds)
    rho, p, count = rank_correlation(rows, d)
    for r in rows:
        r |= {"spearman_rho": rho, "spearman_p": p, "spearman_designs": count, "spearman_d": d}
