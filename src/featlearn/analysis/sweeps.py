"""Summaries of sweep cells and per-d threshold fits (the rows of the results tables; docs/model.md,
the success rule under eq. (M8) and the fit (M10))."""

import numpy as np

from featlearn.analysis.thresholds import fit_logistic
from featlearn.analysis.width_profile import delta50_interval


def censored(cell):
    """Trials whose outcome the budget hid: failed (not diverged) and stopped by the step budget, with
    no certified minimum and no convergence (in a period-2 cycle or not, docs/model.md (M15)), so a
    longer run might still have escaped."""
    return np.isin(cell["stop_reason"], ("budget", "cycle")) & ~cell["success"] & ~cell["diverged"]


def cell_summary(sweep, settings, cell):
    """One table row for one cell: success counts, final-ρ median with 30th/70th percentiles (all
    trials, and the failed ones alone), escape steps."""
    rho = cell["final_rho"]
    escaped = cell["escape_step"][cell["escape_step"] >= 0]
    q30, q50, q70 = np.nanpercentile(rho, [30, 50, 70]) if np.isfinite(rho).any() else (np.nan,) * 3
    failed = rho[~cell["success"] & np.isfinite(rho)]
    f30, f50, f70 = np.percentile(failed, [30, 50, 70]) if failed.size else (np.nan,) * 3
    return {
        "sweep": sweep,
        "activation": settings["activation"],
        "link": settings["link"],
        "m": int(settings["m"]),
        "init": settings["init"],
        "d": int(cell["d"]),
        "delta": float(cell["delta"]),
        "trials": int(rho.size),
        "successes": int(cell["success"].sum()),
        "diverged": int(cell["diverged"].sum()),
        "stopped_at_minimum": int(np.sum(cell["stop_reason"] == "certified_minimum")),
        "censored": int(np.sum(censored(cell))),
        "cycling": int(np.sum(cell["stop_reason"] == "cycle")),
        "rho_median": float(q50),
        "rho_q30": float(q30),
        "rho_q70": float(q70),
        "rho_failed_median": float(f50),
        "rho_failed_q30": float(f30),
        "rho_failed_q70": float(f70),
        "escaped": int(escaped.size),
        "escape_step_median": float(np.median(escaped)) if escaped.size else np.nan,
        "escape_step_q25": float(np.percentile(escaped, 25)) if escaped.size else np.nan,
        "escape_step_q75": float(np.percentile(escaped, 75)) if escaped.size else np.nan,
    }


def threshold_rows(rows):
    """Logistic fit of success vs δ for each (sweep, d) in the cell rows, censored trials counted as
    failures, with the 95 % profile interval of δ₅₀ (docs/finite_size.md, (F3); Firth's where the
    fit used it), and the same fit counting censored trials as successes
    (``delta50_censored_as_success``): the two bracket the effect of the step budget."""
    out = []
    for key in sorted({(r["sweep"], r["d"]) for r in rows}):
        cells = sorted((r for r in rows if (r["sweep"], r["d"]) == key), key=lambda r: r["delta"])
        deltas, trials = [c["delta"] for c in cells], [c["trials"] - c["diverged"] for c in cells]
        successes = [c["successes"] for c in cells]
        fit = fit_logistic(deltas, successes, trials)
        low, high = delta50_interval(deltas, successes, trials, fit.delta50, fit.status == "firth")
        # the same fit with every censored trial counted as a success: how much the budget matters
        upper = fit_logistic(deltas, [c["successes"] + c.get("censored", 0) for c in cells], trials)
        first = cells[0]
        out.append(
            {
                "sweep": key[0],
                "activation": first["activation"],
                "link": first["link"],
                "m": first["m"],
                "init": first["init"],
                "d": key[1],
                "trials_per_point": first["trials"],
                "delta_min": cells[0]["delta"],
                "delta_max": cells[-1]["delta"],
                **{k: v for k, v in fit.as_dict().items()},
                "delta50_low": low,
                "delta50_high": high,
                "censored": int(sum(c.get("censored", 0) for c in cells)),
                "delta50_censored_as_success": upper.delta50,
                "delta50_censored_as_success_err": upper.delta50_err,
            }
        )
    return out


def learning_step_rows(cell, level, names=("easy", "hard")):
    """Per trial of a k-direction cell: the first recorded step at which each direction's overlap
    ‖P_{span Θ} θ*_l‖ reaches ``level`` (−1: never; resolution = the recording grid), its final
    value, and the final per-neuron overlap max_j |θ*_lᵀθ̂_j| beside it."""
    overlaps = cell["direction_overlap"]  # (trials, grid, k)
    rows = []
    for trial in range(overlaps.shape[0]):
        row = {"d": int(cell["d"]), "delta": float(cell["delta"]), "trial": trial}
        for index, name in enumerate(names):
            series = overlaps[trial, :, index]
            reached = np.flatnonzero(series >= level)
            row[f"{name}_learned_step"] = int(cell["steps"][reached[0]]) if reached.size else -1
            row[f"{name}_final_overlap"] = float(series[np.isfinite(series)][-1])
            neuron = cell["neuron_overlap"][trial, :, index]
            row[f"{name}_final_neuron_overlap"] = float(neuron[np.isfinite(neuron)][-1])
        rows.append(row)
    return rows


def threshold_table_rows(sweep_fits, delta_alg):
    """The threshold table: every empirical δ₅₀ (rows of the ``<sweep>_thresholds.csv`` tables)
    and every δ_alg of the spectral theory (rows of ``delta_alg.csv``), with one set of columns."""
    rows = [
        {
            "kind": "delta50_gd_empirical",
            **{k: fit[k] for k in ("sweep", "activation", "link", "m", "init", "d", "trials_per_point")},
            **{k: fit[k] for k in ("delta_min", "delta_max")},
            "threshold": fit["delta50"],
            "threshold_err": fit["delta50_err"],
            "threshold_low": fit["delta50_low"],
            "threshold_high": fit["delta50_high"],
            "scale": fit["scale"],
            "scale_err": fit["scale_err"],
            "status": fit["status"],
        }
        for fit in sweep_fits
    ]
    blank = dict.fromkeys(
        ("sweep", "activation", "m", "init", "d", "trials_per_point", "delta_min", "delta_max"), ""
    )
    rows += [
        {
            "kind": "delta_alg_spectral_theory",
            **blank,
            "link": row["link"],
            "threshold": row["delta_alg"],
            "threshold_err": 0.0,
            "threshold_low": row["delta_alg"],
            "threshold_high": row["delta_alg"],
            "scale": "",
            "scale_err": "",
            "status": f"noise={row['noise']:g}",
        }
        for row in delta_alg
    ]
    return [{k: r[k] for k in rows[0]} for r in rows]
