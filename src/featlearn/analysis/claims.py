"""The paper's claims, one by one, against what the workflow measured: a verdict computed from the
results tables with the tolerances of the config (``claims.tolerance``), never written by hand.

Verdicts: "reproduced" (within tolerance), "partly" (within twice the tolerance, or one of two
parts), "not reproduced", "not tested at this scale" (the result a claim needs is missing, or its
fit failed).  A claim's row holds the paper's statement, the measured value(s) with their
uncertainty, the tolerance and the verdict, and the table it was read from.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from featlearn.analysis.criteria import agrees, allowed_gap
from featlearn.analysis.formatting import significant
from featlearn.analysis.thresholds import FITTED

REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTED = (
    "reproduced",
    "partly",
    "not reproduced",
    "not tested at this scale",
)
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTED)


def closeness(value, error, target, tolerance):
    """Verdict of value ± error against target: reproduced when they agree (``criteria.agrees``:
    |Δ| ≤ max(2σ, tol)), partly within twice that (|Δ| ≤ 2·max(2σ, tol)), else not reproduced; a
    missing value (None or NaN) is not tested."""
    if value is None or not math.isfinite(value):
        return NOT_TESTED
    if agrees(value, error, target, tolerance):
        return REPRODUCED
    return PARTLY if abs(value - target) <= 2 * allowed_gap(error, tolerance) else NOT_REPRODUCED


def all_or_some(flags):
    """reproduced if every part holds, partly if some do, not reproduced if none; not tested if
    no part could be evaluated (None)."""
    known = [f for f in flags if f is not None]
    if not known:
        return NOT_TESTED
    return REPRODUCED if all(known) and len(known) == len(flags) else PARTLY if any(known) else NOT_REPRODUCED


@dataclass
class Results:
    """What the claims read: the rows of the results tables (``read(name)`` → list of dicts, or
    [] when the table does not exist) and the long run's arrays (``grokking`` → dict or None)."""

    read: Callable[[str], list]
    grokking: dict | None


def _fit(results, sweep, d=None):
    """(d, δ₅₀, σ, scale) of a sweep's fit at d (default: its largest d with a fit)."""
    rows = [r for r in results.read("thresholds.csv") if r.get("sweep") == sweep and r["status"] in FITTED]
    if d is not None:
        rows = [r for r in rows if int(r["d"]) == d]
    if not rows:
        return None
    row = max(rows, key=lambda r: r["d"])
    return int(row["d"]), row["threshold"], row["threshold_err"], row["scale"]


def _row(paper, measured, tolerance, verdict, source):
    return {
        "paper": paper,
        "measured": measured,
        "tolerance": tolerance,
        "verdict": verdict,
        "source": source,
    }


def _fmt(x, digits=3):
    return significant(x, digits, missing="nan")


def claim_delta_alg(results, tol, paper):
    rows = [r for r in results.read("delta_alg.csv") if r["link"] in ("he2", "square") and r["noise"] == 0]
    values = [r["delta_alg"] for r in rows]
    target = paper["delta_alg"]
    within = [agrees(v, None, target, tol["delta_alg"]) for v in values]
    verdict = all_or_some(within) if values else NOT_TESTED
    return _row(
        f"δ_alg = {target:g} for noiseless phase retrieval",
        ", ".join(f"{r['link']}: {_fmt(r['delta_alg'])}" for r in rows),
        tol["delta_alg"],
        verdict,
        "delta_alg.csv",
    )


def _extrapolations(results):
    """{model: (chosen law's row, usable d count)} of ``finite_size_scaling.csv`` (docs/finite_size.md);
    a model none of whose laws could be chosen maps to (None, count)."""
    out = {}
    for row in results.read("finite_size_scaling.csv"):
        chosen, count = out.get(row["model"], (None, 0))
        count = max(count, int(row["n_points"]) if row["law"] == "constant" else 0)
        out[row["model"]] = (row if row["chosen"] is True else chosen, count)
    return out


def _extrapolation_text(row, count):
    if row is None:
        return f"no law chosen ({count} d)"
    interval = f"[{_fmt(row['delta_inf_low'])}, {_fmt(row['delta_inf_high'])}]"
    return f"δ∞ = {_fmt(row['delta_inf'])} {interval} ({row['law']} law, {count} d)"


def _sweep_extrapolation(results, sweep):
    """The finite-size text of the model whose sweep is ``sweep`` ("" if none)."""
    rows = {r["model"]: r["sweep"] for r in results.read("finite_size_scaling.csv")}
    models = [m for m, s in rows.items() if s == sweep]
    if not models:
        return ""
    row, count = _extrapolations(results)[models[0]]
    return f"; d → ∞: {_extrapolation_text(row, count)}"


def claim_threshold(results, tol, sweep, target, key, label):
    fit = _fit(results, sweep)
    measured = "no fit" if fit is None else f"δ₅₀ = {_fmt(fit[1])} ± {_fmt(fit[2], 2)} (d = {fit[0]})"
    measured += _sweep_extrapolation(results, sweep)
    return _row(
        f"{label} δ* ≈ {target:g}",
        measured,
        tol[key],
        NOT_TESTED if fit is None else closeness(fit[1], fit[2], target, tol[key]),
        "thresholds.csv",
    )


def claim_sharpening(results, tol, sweeps):
    parts, text = [], []
    for sweep in sweeps:
        rows = sorted(
            (r for r in results.read("thresholds.csv") if r.get("sweep") == sweep and r["status"] in FITTED),
            key=lambda r: r["d"],
        )
        if len(rows) < 2:
            parts.append(None)
            continue
        ratio = rows[-1]["scale"] / rows[0]["scale"]
        parts.append(ratio <= tol["sharpening_ratio"])
        text.append(f"{sweep}: width ratio {_fmt(ratio)} (d {int(rows[0]['d'])} → {int(rows[-1]['d'])})")
    return _row(
        "the transitions sharpen as d grows",
        "; ".join(text) or "fewer than two d",
        tol["sharpening_ratio"],
        all_or_some(parts),
        "thresholds.csv",
    )


def claim_spectral_gain(results, tol, random, spectral):
    fit_s = _fit(results, spectral)
    fit_r = _fit(results, random, d=fit_s[0]) if fit_s else None
    if not (fit_s and fit_r):
        return _row(
            "spectral initialisation lowers GD's threshold",
            "no common d with fits",
            tol["spectral_gain"],
            NOT_TESTED,
            "thresholds.csv",
        )
    gain = fit_r[1] - fit_s[1]
    error = math.hypot(fit_r[2], fit_s[2])
    verdict = (
        REPRODUCED
        if gain - 2 * error >= tol["spectral_gain"]
        else PARTLY
        if gain > 2 * error
        else NOT_REPRODUCED
    )
    return _row(
        "spectral initialisation lowers GD's threshold",
        f"δ₅₀ random {_fmt(fit_r[1])}, spectral {_fmt(fit_s[1])} (d = {fit_s[0]}): "
        f"lower by {_fmt(gain)} ± {_fmt(error, 2)}",
        tol["spectral_gain"],
        verdict,
        "thresholds.csv",
    )


def claim_nn_above_alg(results, tol, sweeps):
    alg = {r["link"]: r["delta_alg"] for r in results.read("delta_alg.csv") if r["noise"] == 0}
    parts, text = [], []
    for sweep in sweeps:
        rows = [r for r in results.read("thresholds.csv") if r.get("sweep") == sweep]
        fit = _fit(results, sweep)
        if fit is None or not rows or rows[0]["link"] not in alg:
            parts.append(None)
            continue
        parts.append(fit[1] - 2 * fit[2] > alg[rows[0]["link"]])
        text.append(f"{sweep}: {_fmt(fit[1])} vs δ_alg {_fmt(alg[rows[0]['link']])}")
    return _row(
        "δ_NN > δ_alg (GD needs more data than the optimal spectral method)",
        "; ".join(text),
        0.0,
        all_or_some(parts),
        "thresholds.csv, delta_alg.csv",
    )


def claim_grokking(results, tol, paper):
    run = results.grokking
    if run is None:
        return _row("grokking", "no long run", tol["plateau"], NOT_TESTED, "grokking")
    train, test, rho = (np.asarray(run[k], float) for k in ("train_loss", "test_loss", "rho"))
    early = max(1, len(train) // 10)
    flat = abs(test[early] - test[1]) <= tol["test_flat"] * test[1] and train[early] < train[1]
    aligned = 1 - rho[-1] <= tol["misalignment"]
    plateau = [agrees(loss[-1], None, paper["plateau"], tol["plateau"]) for loss in (train, test)]
    return _row(
        "grokking: test loss flat while the train loss falls, then misalignment → 0 and both "
        "losses plateau "
        f"near {paper['plateau']:g}",
        (
            f"test loss {_fmt(test[1])} → {_fmt(test[early])} by step {int(run['steps'][early])} "
            f"(train {_fmt(train[1])} → {_fmt(train[early])}); final 1 − ρ = {_fmt(1 - rho[-1], 2)}; "
            f"final losses train {_fmt(train[-1])}, test {_fmt(test[-1])}"
        ),
        tol["plateau"],
        all_or_some([flat, aligned, *plateau]),
        "grokking run",
    )


def claim_outlier(results, tol, activations):
    parts, text = [], []
    for act in activations:
        rows = results.read(f"hessian_{act}.csv")
        if not rows:
            parts.append(None)
            continue
        deltas = sorted({r["delta"] for r in rows})
        share = {
            dl: np.mean([bool(r["negative_aligned"]) for r in rows if r["delta"] == dl]) for dl in deltas
        }
        parts.append(share[deltas[0]] == 0 and share[deltas[-1]] == 1)
        text.append(
            f"{act}: aligned negative outlier in {share[deltas[0]]:.0%} of seeds at δ={deltas[0]:g}, "
            f"{share[deltas[-1]]:.0%} at δ={deltas[-1]:g}"
        )
    return _row(
        "the aligned negative Hessian outlier appears above the threshold and not below",
        "; ".join(text),
        0.0,
        all_or_some(parts),
        "hessian_<activation>.csv",
    )


def claim_dmft(results, tol):
    rows = results.read("dmft_vs_simulation.csv")
    if not rows:
        return _row(
            "the DMFT matches simulation",
            "no comparison",
            tol["dmft_rel_error"],
            NOT_TESTED,
            "dmft_vs_simulation.csv",
        )
    errors = [
        (r[f"{k}_max_err_rel"], r.get(f"{k}_err_se_rel")) for r in rows for k in ("norm2", "train_loss")
    ]
    worst, se = max(errors, key=lambda e: e[0])
    return _row(
        "the DMFT matches simulation",
        f"largest relative error of ‖θ‖² and train loss over {len(rows)} (model, δ): {_fmt(worst, 2)} "
        f"± {_fmt(se, 2)} (DMFT replicas and seeds combined)",
        tol["dmft_rel_error"],
        closeness(worst, se, 0.0, tol["dmft_rel_error"]),
        "dmft_vs_simulation.csv",
    )


def claim_width(results, tol, groups):
    parts, text = [], []
    for narrow, wide in groups:
        fit_w = _fit(results, wide)
        fit_n = _fit(results, narrow, d=fit_w[0]) if fit_w else None
        if not (fit_n and fit_w):
            parts.append(None)
            continue
        shift = fit_n[1] - fit_w[1]
        parts.append(abs(shift) > 2 * math.hypot(fit_n[2], fit_w[2]))
        text.append(f"{narrow} → {wide}: δ₅₀ {_fmt(fit_n[1])} → {_fmt(fit_w[1])} (d = {fit_n[0]})")
    return _row(
        "the width m shifts the threshold",
        "; ".join(text) or "no common d",
        0.0,
        all_or_some(parts),
        "thresholds.csv",
    )


def claim_escape_time(results, tol, sweep):
    rows = [r for r in results.read(f"{sweep}_cells.csv") if r["escaped"] >= 2]
    if not rows:
        return _row(
            "the escape time grows near the threshold", "no escapes", 0.0, NOT_TESTED, f"{sweep}_cells.csv"
        )
    d = max(r["d"] for r in rows)
    cells = sorted((r for r in rows if r["d"] == d), key=lambda r: r["delta"])
    first, last = cells[0], cells[-1]
    grows = first["escape_step_median"] > last["escape_step_median"]
    return _row(
        "the escape time grows near the threshold",
        f"median escape step {_fmt(first['escape_step_median'])} at δ={first['delta']:g} vs "
        f"{_fmt(last['escape_step_median'])} at δ={last['delta']:g} (d = {int(d)})",
        0.0,
        (REPRODUCED if grows else NOT_REPRODUCED) if len(cells) > 1 else NOT_TESTED,
        f"{sweep}_cells.csv",
    )


def claim_easy_hard(results, tol, table):
    rows = results.read(table)
    easy = [r["easy_learned_step"] for r in rows if r["easy_learned_step"] >= 0]
    hard = [r["hard_learned_step"] for r in rows if r["hard_learned_step"] >= 0]
    if not easy:
        return _row(
            "easy directions in O(1) steps, hard ones later",
            "no learned easy direction",
            tol["easy_steps"],
            NOT_TESTED,
            table,
        )
    parts = [np.median(easy) <= tol["easy_steps"], bool(hard) and np.median(hard) > np.median(easy)]
    return _row(
        "easy directions are learned in O(1) steps, hard ones only later",
        f"median learning step easy {_fmt(float(np.median(easy)))} ({len(easy)} trials), "
        f"hard {_fmt(float(np.median(hard))) if hard else 'never'} ({len(hard)} trials)",
        tol["easy_steps"],
        all_or_some(parts),
        table,
    )


def claim_theory_threshold(results, tol, paper):
    rows = {r["model"]: r for r in results.read("theory_thresholds.csv")}
    parts, text = [], []
    for model, target in paper.items():
        if model not in rows:
            parts.append(None)
            continue
        value = rows[model]["delta_nn_long_time"]
        parts.append(agrees(value, None, target, tol["theory_threshold"]))
        text.append(f"{model}: δ_NN(∞) = {_fmt(value)} (paper {target:g})")
    gd = [f"{m}: {_extrapolation_text(row, count)}" for m, (row, count) in _extrapolations(results).items()]
    if gd:
        text.append("GD's d → ∞ threshold " + ", ".join(gd))
    return _row(
        "δ_NN from the theory: " + ", ".join(f"{m} ≈ {t:g}" for m, t in paper.items()),
        "; ".join(text),
        tol["theory_threshold"],
        all_or_some(parts),
        "theory_thresholds.csv",
    )


def claim_limit(results, tol):
    """GD's d → ∞ threshold is the theory's: per finite-size model with a δ_NN(∞), the chosen law's
    bootstrap interval of δ∞ widened by the tolerance contains δ_NN(∞); reproduced if it does for
    every model, partly for some (``all_or_some``).  A model with fewer than ``finite_size_points``
    usable d is not tested: a law chosen by predicting the largest d needs more dimensions than the
    quick scale has."""
    theory = {r["model"]: r["delta_nn_long_time"] for r in results.read("finite_size_scaling.csv")}
    parts, text = [], []
    for model, (row, count) in _extrapolations(results).items():
        limit = theory[model]
        if not math.isfinite(limit):
            continue
        text.append(f"{model}: {_extrapolation_text(row, count)} vs δ_NN(∞) = {_fmt(limit)}")
        if row is None or count < tol["finite_size_points"] or not math.isfinite(row["delta_inf_low"]):
            parts.append(None)
            continue
        gap = max(row["delta_inf_low"] - limit, limit - row["delta_inf_high"], 0.0)
        parts.append(gap <= tol["finite_size"])
    verdict = all_or_some(parts)
    return _row(
        "GD's d → ∞ threshold is the theory's δ_NN(∞) (the phase transition the theory locates)",
        "; ".join(text) or "no finite-size model with a theory value",
        tol["finite_size"],
        verdict,
        "finite_size_scaling.csv",
    )


def claim_rows(results, tolerance, sweeps, paper):
    """Every claim's row (in the order of the paper's narrative).  ``sweeps``: which sweeps and
    models play which part (``roles``: gelu, quad, gelu_spectral, width pairs, hessian
    activations, theory_gelu, theory_quad); ``paper``: the paper's values (gelu, quad, plateau,
    delta_alg)."""
    rows = [
        claim_delta_alg(results, tolerance, paper),
        claim_threshold(results, tolerance, sweeps["gelu"], paper["gelu"], "gelu_threshold", "GeLU"),
        claim_threshold(results, tolerance, sweeps["quad"], paper["quad"], "quad_threshold", "Quad"),
        claim_theory_threshold(
            results, tolerance, {sweeps["theory_gelu"]: paper["gelu"], sweeps["theory_quad"]: paper["quad"]}
        ),
        claim_sharpening(results, tolerance, [sweeps["gelu"], sweeps["quad"]]),
        claim_spectral_gain(results, tolerance, sweeps["gelu"], sweeps["gelu_spectral"]),
        claim_nn_above_alg(results, tolerance, [sweeps["gelu"], sweeps["quad"]]),
        claim_grokking(results, tolerance, paper),
        claim_outlier(results, tolerance, sweeps["hessian"]),
        claim_dmft(results, tolerance),
        claim_width(results, tolerance, sweeps["width"]),
        claim_escape_time(results, tolerance, sweeps["gelu"]),
        claim_easy_hard(results, tolerance, sweeps["easy_hard_table"]),
        claim_limit(results, tolerance),
    ]
    return [{"claim": i + 1, **row} for i, row in enumerate(rows)]


def roles(config):
    """Which sweeps and models of ``config`` each claim reads: the Fig 4 and Fig 5 sweeps, Fig 1's
    spectral sweep, each width group's narrowest and widest sweep, the Hessian activations, and
    the theory model of each activation (``theory.hessian_overlay``)."""
    by_paper = {spec.get("paper"): name for name, spec in config["sweeps"].items()}
    overlay = config["theory"]["hessian_overlay"]
    return {
        "gelu": by_paper.get("Fig 4"),
        "quad": by_paper.get("Fig 5"),
        "gelu_spectral": config["figure1"]["spectral"],
        "width": [(group[0], group[-1]) for group in config["width"]["groups"].values()],
        "hessian": list(config["hessian"]["delta"]),
        "theory_gelu": overlay.get("gelu"),
        "theory_quad": overlay.get("quad"),
        "easy_hard_table": f"{config['easy_hard']['stem']}_learning_steps.csv",
    }
