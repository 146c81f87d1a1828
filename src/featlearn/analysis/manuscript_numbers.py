"""Every number the manuscript (paper/manuscript.typ) cites, read from the results and formatted
once, written to ``results/paper/numbers.json``.  The manuscript source holds no result number
(a test checks it): rebuilding with another config changes the text with the results.
"""

import math

from featlearn.analysis import anatomy_tables, finite_n_tables
from featlearn.analysis.claims import finite_size_text
from featlearn.analysis.conventions import REPORTS, aligned_risk, reported
from featlearn.analysis.formatting import interval
from featlearn.analysis.formatting import significant as fmt
from featlearn.analysis.threshold_lines import threshold_lines
from featlearn.io.table_names import (
    DELTA50_FINITE_N,
    DELTA50_FINITE_N_VS_GD,
    DELTA50_PREDICTION,
    DELTA_ALG,
    DESIGN,
    ESCAPE_ANATOMY_VERDICT,
    FINITE_SIZE_POINTS,
    FINITE_SIZE_SCALING,
    FINITE_SIZE_SUMMARY,
    PAPER_CORRESPONDENCE,
    PLATEAU_THRESHOLD,
    SPECTRAL_THRESHOLD,
    THEORY_THRESHOLDS,
    THRESHOLDS,
)


def pm(value, error):
    return f"{fmt(value)} ± {fmt(error, 2)}"


def sweep_thresholds(rows):
    """{sweep: [{d, delta50 (text: δ₅₀ with its 95 % profile interval), scale (text), status}]} from
    thresholds.csv."""
    out = {}
    for r in rows:
        if r.get("kind", "").startswith("delta50"):
            out.setdefault(r["sweep"], []).append(
                {
                    "d": int(r["d"]),
                    "delta50": _interval(r["threshold"], r["threshold_low"], r["threshold_high"]),
                    "scale": fmt(r["scale"]),
                    "status": r["status"],
                }
            )
    return out


def theory_rows(rows):
    return {
        r["model"]: {
            "activation": r["activation"],
            "link": r["link"],
            "delta_nn_long_time": fmt(r["delta_nn_long_time"]),
            "numerical_error": fmt(r["long_time_numerical_error"], 1),
            "state": str(r["long_time_state"]),
            "at_value": fmt(r["long_time_at_value"]),
            "delta_nn_min": fmt(r["delta_nn_min"]),
            "delta_nn_argmin_t": fmt(r["delta_nn_argmin_t"]),
            "delta_alg": fmt(r["delta_alg"]),
        }
        for r in rows
    }


def prediction_rows(rows):
    """The rows of delta50_prediction.csv at a d the sweep measured (those with an empirical δ₅₀); the
    verdict reads "horizon-limited" where the prediction is set by the horizon."""
    return [
        {
            "model": r["model"],
            "d": int(r["d"]),
            "rho_c": fmt(r["rho_c"]),
            "predicted": fmt(r["delta50_predicted"]),
            "empirical": pm(r["delta50_empirical"], r["delta50_empirical_err"]),
            "agrees": "horizon-limited" if r.get("horizon_limited") is True else str(r["agrees"]),
        }
        for r in rows
        if isinstance(r.get("delta50_empirical"), float)
    ]


def plateau_numbers(activation="gelu"):
    """The aligned-neuron loss (Fig 2 plateau) under the two targets and three reports."""
    out = {}
    for link in ("square", "he2"):
        _, risk = aligned_risk(activation, link, 1.0, 0.0)
        out[link] = {report: fmt(reported(risk, report, link)) for report in REPORTS}
    return out


def performance(benchmarks):
    """Jobs and CPU seconds of the run from its benchmark rows [(path, seconds, max_rss)]."""
    seconds = sum(s for _, s, _ in benchmarks)
    peak = max((m for _, _, m in benchmarks), default=float("nan"))
    return {"jobs": str(len(benchmarks)), "cpu_minutes": fmt(seconds / 60), "peak_rss_mb": fmt(peak)}


def landscape_numbers(cells):
    """Fig 3: per δ the bottom Hessian eigenvalue at the plateau, its eigenvector's overlap² with θ*,
    the curvature along θ* alone, and how far unrestricted GD went along θ*."""
    return [
        {
            "delta": fmt(float(c["delta"])),
            "lambda_min": fmt(float(c["lambda_min"])),
            "overlap2": fmt(float(c["outlier_overlap2"]), 2),
            "curvature_hard": fmt(float(c["hard_curvature"])),
            "final_along_star": fmt(abs(float(c["hard_path_b"][-1])), 2),
        }
        for c in sorted(cells, key=lambda c: float(c["delta"]))
    ]


def results_index(groups, rows_of):
    """The manuscript's results index: per table of the workflow's table manifest (``groups``: its
    ``table`` name, ``caption`` and the ``files`` this build wrote; ``rows_of``: file name → rows),
    its name, caption, rows and columns.  A table written once per sweep or activation is one entry
    (rows summed, the files named after the caption).  A table with no rows says why in one line
    (its ``empty`` reason) in place of its caption, or is left out where it has no reason.  Overlay
    results reach the reader through it: a build with an overlay lists the overlay's tables."""
    out = []
    for group in groups:
        files = group["files"]
        rows = [rows_of[name] for name in files]
        caption = group["caption"]
        if not any(rows):
            if not group.get("empty"):
                continue
            caption = f"Empty in this build: {group['empty']}"
        if "{" in group["table"]:
            caption += f" Files: {', '.join(files)}."
        columns = next((len(r[0]) for r in rows if r), 0)
        out.append(
            {
                "table": group["table"],
                "caption": caption,
                "rows": str(sum(map(len, rows))),
                "columns": str(columns),
            }
        )
    return out


def _interval(value, low, high):
    """The value and its interval, "v [low, high]", an open side written ∞ (a one-sided profile
    interval), an infinite value (a law at its no-limit end) ∞; "—" without a value."""
    if math.isnan(value):
        return fmt(value)
    text = fmt(value) if math.isfinite(value) else ("∞" if value > 0 else "−∞")
    return f"{text} {interval(low, high)}"


def _law_level(row, status):
    """A law row's column of levels: the constant law's level a with its profile interval where the
    constant is not rejected (``finite_size.constant_rejected``), else "constant rejected"; for a
    limit law the model's status of δ∞ within the power and log laws (F9), never a number (their
    interval under-covers limits outside the laws, docs/finite_size.md); "none"."""
    if row["law"] == "constant":
        if math.isnan(row["level"]):
            return "constant rejected"
        return "constant " + _interval(row["level"], row["level_low"], row["level_high"])
    if row["law"] in ("power", "log"):
        return f"δ∞ {status}"
    return "none"


def finite_size_rows(rows, summaries):
    """Per model and law of finite_size_scaling.csv (docs/finite_size.md): ΔAICc, the nested
    likelihood-ratio p-value, the goodness of fit against free per-d δ₅₀ (F9a), the level
    (``_law_level``: for a limit law the status of δ∞ in finite_size_summary.csv's ``summaries``),
    and the prediction of the largest d from the others
    against its measurement (z, a diagnostic)."""
    status = {s["model"]: str(s["limit_status"]) for s in summaries}
    out = []
    for r in rows:
        out.append(
            {
                "model": r["model"],
                "law": r["law"],
                "delta_aicc": fmt(r["delta_aicc"], 2),
                "lr_p": fmt(r["lr_p"], 2),
                "gof_p": fmt(r["gof_p"], 2),
                "delta_inf": _law_level(r, status.get(r["model"], "not tested")),
                "leave_out": f"{pm(r['loo_predicted'], r['loo_predicted_err'])} vs "
                f"{pm(r['loo_measured'], r['loo_measured_err'])} (z = {fmt(r['loo_z'], 2)})"
                if r["loo_status"] == "ok"
                else f"not fitted: {r['loo_status']}",
                "d_left_out": fmt(r["d_left_out"]),
            }
        )
    return out


def finite_size_summary_rows(rows):
    """Per model of finite_size_summary.csv: the d used, the slope per doubling, the curvature and the
    width exponent with their profile intervals, the p-value of a constant, δ∞'s verdict in words
    (``claims.finite_size_text``) and δ_NN(∞)."""
    return [
        {
            "model": r["model"],
            "d": str(r["d_used"]),
            "slope": _interval(r["slope"], r["slope_low"], r["slope_high"]),
            "curvature": _interval(r["curvature"], r["curvature_low"], r["curvature_high"]),
            "width_exponent": _interval(
                r["width_exponent"], r["width_exponent_low"], r["width_exponent_high"]
            ),
            "constant_p": fmt(r["constant_p"], 2),
            "limit": finite_size_text(r),
            "limit_status": str(r["limit_status"]),
            "delta_nn": fmt(r["delta_nn_long_time"]),
            "level": fmt(100 * r["level"]),
            "decide": decide_text(r),
        }
        for r in rows
    ]


def decide_text(row):
    """What separating "δ∞ = δ_NN(∞)" from "growth ∝ log d" would take (docs/finite_size.md, (F13),
    (F13a)), from a finite_size_summary.csv row: the cheapest design with 80 % power under both
    readings at every width exponent in μ's interval, its core-hours and memory per job, or the
    largest d searched and the best power found; "" for a model without δ_NN(∞).  Two readings
    within the limit laws: no design decides claim 14 (F16), and the text says so."""
    readings = "δ∞ = δ_NN(∞) from growth ∝ log d (two readings within the limit laws; no finite d decide "
    readings += "the limit itself) with 80 % power"
    mus = (row.get("width_exponent_low", math.nan), row.get("width_exponent_high", math.nan))
    if all(math.isfinite(mu) for mu in mus):
        readings += f" at every width exponent μ in [{fmt(mus[0], 2)}, {fmt(mus[1], 2)}]"
    if math.isfinite(row.get("decide_core_hours", math.nan)):
        d_max, trials = int(row["decide_d_max"]), int(row["decide_trials"])
        cost = fmt(row["decide_core_hours"])
        memory = fmt(row.get("decide_mem_mb", math.nan) / 1000)
        return (
            f"separating {readings} would take d up to {d_max} with {trials} trials per cell: "
            f"{cost} core-hours and {memory} GB per job (the cost model's upper bounds)"
        )
    if math.isfinite(row.get("decide_searched_d_max", math.nan)):
        best = fmt(100 * row.get("decide_best_power", math.nan), 2)
        return (
            f"no design up to d = {int(row['decide_searched_d_max'])} separates {readings} "
            f"(the best reaches {best} %)"
        )
    return ""


def spectral_threshold_rows(rows):
    """Per activation and d of spectral_threshold.csv (docs/finite_size.md, (F14), (F15)): the seeds
    per cell and the points (δ × seed), δ_spec(d) from the aligned crossing with its profile interval,
    the λ_min crossing with Fieller's interval and the degree of its fit, and δ_NN(∞); None without
    the scan."""
    if rows is None:
        return None
    return [
        {
            "activation": r["activation"],
            "d": str(int(r["d"])),
            "seeds": f"{int(r['seeds'])} × {len(str(r['deltas']).split(','))} = {int(r['points'])}",
            "delta_spec": _interval(r["delta_spec"], r["delta_spec_low"], r["delta_spec_high"]),
            "lambda_crossing": _interval(
                r["lambda_crossing"], r["lambda_crossing_low"], r["lambda_crossing_high"]
            ),
            "degree": {1: "line", 2: "quadratic"}.get(int(r["lambda_degree"]), "—"),
            "delta_nn": fmt(r["delta_nn_long_time"]),
        }
        for r in rows
    ]


def _share(row, key):
    """'k/n [low, high]' of a pooled anatomy share (``anatomy_tables.pooled_row``)."""
    n = int(row[f"{key}_of"])
    if n == 0:
        return "—"
    return f"{int(row[key])}/{n} [{fmt(row[f'{key}_low'], 2)}, {fmt(row[f'{key}_high'], 2)}]"


def anatomy_rows(rows):
    """Per sweep and d (and every d together) of escape_anatomy_verdict.csv (docs/escape.md,
    (E16)–(E18)): trials and successes,
    the shares of the successful trials whose growth the aligned curvature drives, that escape from
    the plateau and of the aligned states that are localised, with their intervals; ρ at the aligned
    window's end (successes, failures) and its separation; what seeds the escape (E16c): the successes
    that succeed again from u⁰ = 0 and the fresh starts that agree with their trials, with their
    intervals, beside the chance agreement, and how well the data's |z₁| (E16d) separates the
    outcomes; the verdict; the intervals' level (%).
    None without the section."""
    if rows is None:
        return None
    return [
        {
            "sweep": r["sweep"],
            "d": r["d"] if r["d"] == "all" else str(int(r["d"])),
            "trials": f"{int(r['successes'])}/{int(r['trials'])}",
            "driven": _share(r, "driven"),
            "from_plateau": _share(r, "from_plateau"),
            "localised": _share(r, "localised_states"),
            "rho_window": f"{fmt(r['rho_window_success'], 2)} / {fmt(r['rho_window_failure'], 2)}",
            "separation": fmt(r["rho_window_separation"], 2),
            "zero_u_kept": _share(r, "zero_u_kept"),
            "reinit_agree": _share(r, "reinit_agree"),
            "chance_agree": fmt(r["chance_agree"], 2),
            "z1_separation": fmt(r["z1_separation"], 2),
            "mechanism": r["mechanism"],
            "level": fmt(100 * anatomy_tables.LEVEL),
        }
        for r in rows
    ]


def _predicted(value, low, high, status):
    """A predicted δ₅₀ with its interval; where P never reaches ½ on the grid, "above the grid" with the
    interval's lower end."""
    if math.isfinite(value):
        return _interval(value, low, high)
    return {"none": f"above the grid (> {fmt(low)})" if math.isfinite(low) else "above the grid"}.get(
        status, "below the grid"
    )


def finite_n_rows(rows):
    """Per model, d and reading of delta50_finite_n_vs_gd.csv at the main (smallest) ρ_c (docs/escape.md,
    (E19)–(E23)): predicted and measured δ₅₀(d) with their intervals, the gap and the verdict.  None
    without the section."""
    if rows is None:
        return None
    main = min(r["rho_c"] for r in rows)
    return [
        {
            "model": r["model"],
            "d": str(int(r["d"])),
            "reading": r["reading"],
            "rho_c": fmt(r["rho_c"]),
            "predicted": _predicted(
                r["delta50_predicted"],
                r["delta50_predicted_low"],
                r["delta50_predicted_high"],
                r["delta50_predicted_status"],
            ),
            "half_sets": fmt(r["delta50_predicted_half_sets"]),
            "level": fmt(100 * finite_n_tables.LEVEL),
            "measured": _interval(
                r["delta50_measured"], r["delta50_measured_low"], r["delta50_measured_high"]
            ),
            "verdict": "agrees"
            if r["agrees"] is True
            else (f"gap {r['gap']:+.2f}" if math.isfinite(r["gap"]) else "no comparison"),
        }
        for r in rows
        if r["rho_c"] == main
    ]


def correspondence_rows(rows):
    """paper_correspondence.csv in words: per model and quantity its value with its interval (or ±
    its error) and whether the paper's value agrees with it."""
    out = []
    for r in rows or []:
        if math.isfinite(r["low"]) or math.isfinite(r["high"]):
            value = _interval(r["value"], r["low"], r["high"])
        else:
            value = _pm_or_dash(r["value"], r["error"]) if math.isfinite(r["error"]) else fmt(r["value"])
        out.append(
            {
                "model": r["model"],
                "quantity": r["quantity"],
                "value": value,
                "paper": fmt(r["paper"]),
                "agrees": "yes" if r["agrees"] is True else "no",
            }
        )
    return out


def _limit_interval(value, low, high):
    """A d → ∞ limit: the value and its interval; the interval alone where the approach laws leave no
    point (the 1/d law rejected); "—" where none is admissible."""
    if math.isnan(value) and math.isfinite(low) and math.isfinite(high):
        return interval(low, high)
    return _interval(value, low, high)


def _limit_text(row):
    """δ_NN^GD of a plateau_threshold.csv row: per d its value and interval; at d = ∞ the interval
    labelled as conditional on the approach laws where (O21) identifies it under them, else the
    row's ``limit_status`` (no level of an unidentified limit)."""
    text = _limit_interval(row["delta_nn_gd"], row["delta_nn_gd_low"], row["delta_nn_gd_high"])
    status = row.get("limit_status")
    if not isinstance(status, str) or not status:
        return text
    return f"{text} (under the laws d^−1, d^−2/3, d^−1/2)" if status.startswith("identified") else status


def plateau_threshold_rows(rows):
    """Per activation and d of plateau_threshold.csv (docs/outlier.md, (O21)): δ_NN^GD(d) with its
    Fieller interval beside δ_spec(d), and the d → ∞ row (the 1/d law's limit and the interval over
    the admissible approach laws; "—" with fewer than two d); None without the scan."""
    if rows is None:
        return None
    return [
        {
            "activation": r["activation"],
            "d": "∞"
            if str(r["d"]) in ("inf", "nan") or not math.isfinite(float(r["d"]))
            else str(int(float(r["d"]))),
            "delta_nn_gd": _limit_text(r),
            "delta_spec": _interval(r["delta_spec"], r["delta_spec_low"], r["delta_spec_high"]),
            "delta_nn_rs": fmt(r["delta_nn_rs"]),
        }
        for r in rows
    ]


def finite_size_point_rows(rows):
    """Per model and d of finite_size_points.csv: δ₅₀(d) with its profile interval and the censored
    trials among the cells of that d (failures stopped by the step budget; a fit counts them as
    failures)."""
    return [
        {
            "model": r["model"],
            "d": str(int(r["d"])),
            "delta50": _interval(r["delta50"], r["delta50_low"], r["delta50_high"]),
            "censored": str(int(r["censored"])),
        }
        for r in rows
    ]


def _pm_or_dash(value, error):
    return pm(value, error) if math.isfinite(value) else fmt(value)


def _long_time_cell(row):
    """δ_NN(∞) of a design row, flagged where AT fails; for a trained second layer, which has none
    (docs/design.md, "A trained second layer"), the layers it trains."""
    if row["long_time_status"] == "trained_layer":
        return "none (trains " + ", ".join(x for x in row["train"].split(",") if x != "theta") + ")"
    return fmt(row["delta_nn_inf"]) + (" (AT fails)" if row["at_stable"] is False else "")


def design_numbers(rows, stem):
    """The designer's table (design.csv, docs/design.md) in the theory's rank order: per design its
    σ, b, r₀, δ_NN(∞) (with an AT flag), min_t δ_NN(t) ± s.e. and GD's δ₅₀ at the largest swept d;
    the design with the lowest δ_NN(∞), Spearman's ρ and the figure's ``stem``.  None without the
    designer overlay."""
    if rows is None:
        return None
    d = int(rows[0]["spearman_d"])
    ranked = sorted(rows, key=lambda r: r["theory_rank"])
    table = [
        {
            "rank": str(int(r["theory_rank"])),
            "design": r["design"],
            "activation": str(r["activation"]),
            "b": fmt(r["b"]),
            "r0": fmt(r["r0"]),
            "delta_nn_inf": _long_time_cell(r),
            "delta_nn_min": _pm_or_dash(r["delta_nn_min"], r["delta_nn_min_se"]),
            "delta50": _pm_or_dash(r.get(f"delta50_d{d}", math.nan), r.get(f"delta50_d{d}_err", math.nan)),
        }
        for r in ranked
    ]
    best = ranked[0]
    return {
        "rows": table,
        "d": str(d),
        "best": best["design"],
        "best_delta_nn": fmt(best["delta_nn_inf"]),
        "spearman": fmt(rows[0]["spearman_rho"]),
        "spearman_designs": str(int(rows[0]["spearman_designs"])),
        "stem": stem,
    }


def phase_line_words(tables, phase_lines, figures):
    """{figure stem: the words naming every threshold line that sweep's phase figure draws, "" when it
    draws none}, from the same ``threshold_lines`` and tables as the figure (theory_thresholds.csv,
    delta50_finite_n.csv where built)."""
    theory = {r["model"]: r for r in tables[THEORY_THRESHOLDS]}
    out = {}
    for sweep, lines in phase_lines.items():
        if lines["stem"] not in figures:
            continue
        drawn = threshold_lines(theory.get(lines["theory"]), tables.get(DELTA50_FINITE_N), lines, sweep)
        out[lines["stem"]] = "; ".join(words for *_, words in drawn)
    return out


def numbers(tables, claims, grokking, landscape, benchmarks, config_name, paper, design_stem=None):
    """The manuscript's numbers.  ``tables``: name → rows; ``claims``: claim rows; ``grokking``:
    the long run's arrays; ``landscape``: the Fig 3 cells; ``benchmarks``: [(path, seconds,
    max RSS)] of the run's jobs; ``paper``: the paper's reported values (``claims.paper``)."""
    verdicts = [c["verdict"] for c in claims]
    train, test, rho = grokking["train_loss"], grokking["test_loss"], grokking["rho"]
    return {
        "config": config_name,
        "paper": {k: fmt(v) for k, v in paper.items()},
        "thresholds": sweep_thresholds(tables[THRESHOLDS]),
        "delta_alg": {r["link"]: fmt(r["delta_alg"]) for r in tables[DELTA_ALG]},
        "theory": theory_rows(tables[THEORY_THRESHOLDS]),
        "prediction": prediction_rows(tables[DELTA50_PREDICTION]),
        "finite_size": finite_size_rows(tables[FINITE_SIZE_SCALING], tables[FINITE_SIZE_SUMMARY]),
        "finite_size_summary": finite_size_summary_rows(tables[FINITE_SIZE_SUMMARY]),
        "spectral_threshold": spectral_threshold_rows(tables.get(SPECTRAL_THRESHOLD)),
        "anatomy": anatomy_rows(tables.get(ESCAPE_ANATOMY_VERDICT)),
        "finite_n": finite_n_rows(tables.get(DELTA50_FINITE_N_VS_GD)),
        "correspondence": correspondence_rows(tables.get(PAPER_CORRESPONDENCE)),
        "plateau_threshold": plateau_threshold_rows(tables.get(PLATEAU_THRESHOLD)),
        "finite_size_points": finite_size_point_rows(tables[FINITE_SIZE_POINTS]),
        "plateau": plateau_numbers(),
        "landscape": landscape_numbers(landscape),
        "grokking": {
            "train_final": fmt(float(train[-1])),
            "test_final": fmt(float(test[-1])),
            "misalignment_final": fmt(float(1 - rho[-1]), 2),
            "steps": str(int(grokking["steps"][-1])),
        },
        "claims": [{k: (fmt(v) if isinstance(v, float) else str(v)) for k, v in c.items()} for c in claims],
        "verdict_counts": {v: str(verdicts.count(v)) for v in dict.fromkeys(verdicts)},
        "claims_total": str(len(claims)),
        "performance": performance(benchmarks),
        "design": design_numbers(tables.get(DESIGN), design_stem),
    }
