"""The paper's claims, one by one, against what the workflow measured: a verdict computed from the
results tables with the tolerances of the config (``claims.tolerance``), never written by hand.

Verdicts: "reproduced" (within tolerance), "partly" (within twice the tolerance, or one of two
parts), "not reproduced" (the data contradict it), "undetermined" (the data cannot decide: a d → ∞
limit, which no finite d determine without an assumption on the law beyond them, docs/finite_size.md
(F16)), "not tested at
this scale" (the result a claim needs is missing, or its fit failed).  A threshold's uncertainty is
its 95 % profile interval (docs/finite_size.md, (F3)).  A claim's row holds the paper's statement,
the measured value(s) with their uncertainty, the tolerance and the verdict, and the table it was
read from.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from featlearn.analysis.criteria import agrees, allowed_gap, half_width
from featlearn.analysis.formatting import interval, significant
from featlearn.analysis.thresholds import FITTED
from featlearn.io.table_names import (
    DELTA50_FINITE_N,
    DELTA_ALG,
    DMFT_VS_SIMULATION,
    FINITE_SIZE_SUMMARY,
    THEORY_THRESHOLDS,
    THRESHOLDS,
)

REPRODUCED, PARTLY, NOT_REPRODUCED, UNDETERMINED, NOT_TESTED = (
    "reproduced",
    "partly",
    "not reproduced",
    "undetermined",
    "not tested at this scale",
)
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, UNDETERMINED, NOT_TESTED)


def closeness(value, error, target, tolerance, interval=None):
    """Verdict of value ± error (or its 95 % profile ``interval``) against target: reproduced when
    they agree (``criteria.agrees``: |Δ| ≤ max(half-width, tol), the half-width 2σ or the interval's
    side towards the target), partly within twice that, else not reproduced; a missing value (None
    or NaN) is not tested."""
    if value is None or not math.isfinite(value):
        return NOT_TESTED
    if agrees(value, error, target, tolerance, interval):
        return REPRODUCED
    gap = allowed_gap(error, tolerance, value, target, interval)
    return PARTLY if abs(value - target) <= 2 * gap else NOT_REPRODUCED


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


@dataclass
class Threshold:
    """A sweep's δ₅₀ at one d: value, s.e., 95 % profile interval (low, high) and the width."""

    d: int
    value: float
    error: float
    low: float
    high: float
    scale: float

    @property
    def interval(self):
        return (self.low, self.high)

    def half_widths(self):
        """(below, above): the interval's sides, 2σ where a side is open (``criteria.half_width``)."""
        return tuple(
            half_width(self.value, self.error, side, self.interval) for side in (-math.inf, math.inf)
        )

    def text(self):
        return f"δ₅₀ = {_fmt(self.value)} {interval(self.low, self.high)} (d = {self.d})"


def _fits(results, sweep):
    """The sweep's ``Threshold`` at every d with a fit, by d."""
    rows = [r for r in results.read(THRESHOLDS) if r.get("sweep") == sweep and r["status"] in FITTED]
    keys = ("threshold", "threshold_err", "threshold_low", "threshold_high", "scale")
    return [Threshold(int(r["d"]), *(float(r[k]) for k in keys)) for r in sorted(rows, key=lambda r: r["d"])]


def _fit(results, sweep, d=None):
    """The sweep's ``Threshold`` at d (default: its largest d with a fit), or None."""
    fits = [f for f in _fits(results, sweep) if d is None or f.d == d]
    return fits[-1] if fits else None


def _difference(larger, smaller):
    """(larger − smaller, the 95 % half-widths of the difference below and above it) from the two
    thresholds' interval sides, combined in quadrature."""
    lo_a, hi_a = larger.half_widths()
    lo_b, hi_b = smaller.half_widths()
    return larger.value - smaller.value, math.hypot(lo_a, hi_b), math.hypot(hi_a, lo_b)


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
    rows = [r for r in results.read(DELTA_ALG) if r["link"] in ("he2", "square") and r["noise"] == 0]
    values = [r["delta_alg"] for r in rows]
    target = paper["delta_alg"]
    within = [agrees(v, None, target, tol["delta_alg"]) for v in values]
    verdict = all_or_some(within) if values else NOT_TESTED
    return _row(
        f"δ_alg = {target:g} for noiseless phase retrieval",
        ", ".join(f"{r['link']}: {_fmt(r['delta_alg'])}" for r in rows),
        tol["delta_alg"],
        verdict,
        DELTA_ALG,
    )


def _finite_size(results):
    """{model: its row of ``finite_size_summary.csv``} (docs/finite_size.md)."""
    return {r["model"]: r for r in results.read(FINITE_SIZE_SUMMARY)}


def _d_range(row):
    ds = [str(int(float(d))) for d in str(row["d_used"]).split(",")]
    return f"d = {ds[0]}–{ds[-1]}" if len(ds) > 1 else f"d = {ds[0]}"


def finite_size_text(row):
    """What a model's finite-size analysis says, in words: the slope per doubling over the measured d,
    that no finite d determine the limit by themselves (docs/finite_size.md, (F16)), and what the
    limit laws say, labelled as conditional on them and with no number: that (F9) identifies δ∞
    within the power and log laws (their interval is not quoted: it covers random limits outside the
    laws in 83 % of cases, docs/finite_size.md), else that they do not identify it and why, or that
    they are not judged at this scale (fewer d than (F9) needs)."""
    slope = f"over {_d_range(row)} δ₅₀ rises {_fmt(row['slope'], 2)} "
    slope += f"{interval(row['slope_low'], row['slope_high'], 2)} per doubling of d"
    if not math.isfinite(row.get("slope", math.nan)):
        slope = f"{_d_range(row)}"
    status = row["limit_status"]
    d_max = int(row["d_max"]) if math.isfinite(row["d_max"]) else 0
    free = f"the limit d → ∞ is not determined by d ≤ {d_max} whatever the law"
    if status == "identified":
        return (
            f"{slope}; {free}; the power and log laws alone would identify it (growth in ln d and in "
            "ln ln d rejected), but their interval misses limits of other shapes too often to quote"
        )
    if status == "not identified":
        check = f": {row['limit_check']}" if row.get("limit_check") else ""
        return f"{slope}; {free}; the power and log laws do not identify it either{check}"
    return f"{slope}; {free}; the limit laws judge no limit with {int(row['n_d'])} d"


def _sweep_finite_size(results, sweep):
    """The finite-size text of the model whose sweep is ``sweep`` ("" if none)."""
    rows = [r for r in _finite_size(results).values() if r.get("sweep") == sweep]
    return f"; {finite_size_text(rows[0])}" if rows else ""


def claim_threshold(results, tol, sweep, target, key, label):
    """The paper's threshold against δ₅₀ at every measured d (the paper does not state its d, and
    δ₅₀ moves with d): one verdict where every d gives the same, "partly" where the verdict changes
    within the measured range, the text naming each d's verdict."""
    fits = _fits(results, sweep)
    verdicts = [closeness(f.value, f.error, target, tol[key], f.interval) for f in fits]
    if not fits:
        measured, verdict = "no fit", NOT_TESTED
    elif len(set(verdicts)) == 1:
        ds = f"d = {fits[0].d}" if len(fits) == 1 else f"every d measured, {fits[0].d}–{fits[-1].d}"
        measured, verdict = f"{fits[-1].text()}; {verdicts[0]} at {ds}", verdicts[0]
    else:
        by_d = "; ".join(f"{f.text()}: {v}" for f, v in zip(fits, verdicts, strict=True))
        measured, verdict = f"the verdict depends on d (the paper's d is not stated): {by_d}", PARTLY
    return _row(
        f"{label} δ* ≈ {target:g}",
        measured + _sweep_finite_size(results, sweep),
        tol[key],
        verdict,
        f"{THRESHOLDS}, {FINITE_SIZE_SUMMARY}",
    )


def claim_sharpening(results, tol, sweeps):
    parts, text = [], []
    for sweep in sweeps:
        rows = sorted(
            (r for r in results.read(THRESHOLDS) if r.get("sweep") == sweep and r["status"] in FITTED),
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
        THRESHOLDS,
    )


def claim_spectral_gain(results, tol, random, spectral):
    fit_s = _fit(results, spectral)
    fit_r = _fit(results, random, d=fit_s.d) if fit_s else None
    if not (fit_s and fit_r):
        return _row(
            "spectral initialisation lowers GD's threshold",
            "no common d with fits",
            tol["spectral_gain"],
            NOT_TESTED,
            THRESHOLDS,
        )
    gain, below, _ = _difference(fit_r, fit_s)
    verdict = (
        REPRODUCED if gain - below >= tol["spectral_gain"] else PARTLY if gain > below else NOT_REPRODUCED
    )
    return _row(
        "spectral initialisation lowers GD's threshold",
        f"δ₅₀ random {_fmt(fit_r.value)}, spectral {_fmt(fit_s.value)} (d = {fit_s.d}): "
        f"lower by {_fmt(gain)}, 95 % lower bound {_fmt(gain - below)}",
        tol["spectral_gain"],
        verdict,
        THRESHOLDS,
    )


def claim_nn_above_alg(results, tol, sweeps):
    alg = {r["link"]: r["delta_alg"] for r in results.read(DELTA_ALG) if r["noise"] == 0}
    parts, text = [], []
    for sweep in sweeps:
        rows = [r for r in results.read(THRESHOLDS) if r.get("sweep") == sweep]
        fit = _fit(results, sweep)
        if fit is None or not rows or rows[0]["link"] not in alg:
            parts.append(None)
            continue
        link = rows[0]["link"]
        parts.append(fit.value - fit.half_widths()[0] > alg[link])
        text.append(
            f"{sweep}: {_fmt(fit.value)} [{_fmt(fit.low)}, {_fmt(fit.high)}] vs δ_alg {_fmt(alg[link])}"
        )
    return _row(
        "δ_NN > δ_alg (GD needs more data than the optimal spectral method)",
        "; ".join(text),
        0.0,
        all_or_some(parts),
        f"{THRESHOLDS}, {DELTA_ALG}",
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
    rows = results.read(DMFT_VS_SIMULATION)
    if not rows:
        return _row(
            "the DMFT matches simulation",
            "no comparison",
            tol["dmft_rel_error"],
            NOT_TESTED,
            DMFT_VS_SIMULATION,
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
        DMFT_VS_SIMULATION,
    )


def claim_width(results, tol, groups):
    parts, text = [], []
    for narrow, wide in groups:
        fit_w = _fit(results, wide)
        fit_n = _fit(results, narrow, d=fit_w.d) if fit_w else None
        if not (fit_n and fit_w):
            parts.append(None)
            continue
        shift, below, above = _difference(fit_n, fit_w)
        parts.append(shift > below or -shift > above)
        text.append(f"{narrow} → {wide}: δ₅₀ {_fmt(fit_n.value)} → {_fmt(fit_w.value)} (d = {fit_n.d})")
    return _row(
        "the width m shifts the threshold",
        "; ".join(text) or "no common d",
        0.0,
        all_or_some(parts),
        THRESHOLDS,
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


def _theory_quantities(row):
    """The theory model's thresholds (theory_thresholds.csv row): [(quantity, value, error)], the
    long-time δ_NN^RS(∞) with its numerical error and min_t δ_NN(t) at every N with its s.e., named in
    words (the manuscript prints them as text)."""
    out = [("long-time theory (RS fixed point)", row["delta_nn_long_time"], row["long_time_numerical_error"])]
    n = int(row["n_paths"])
    out.append((f"finite-time theory, min over t, N = {n}", row["delta_nn_min"], row["delta_nn_min_se"]))
    for key in sorted(k for k in row if k.startswith("delta_nn_min_N")):
        n = key.removeprefix("delta_nn_min_N")
        out.append(
            (f"finite-time theory, min over t, N = {n}", row[key], row.get(f"delta_nn_min_se_N{n}", math.nan))
        )
    return out


def paper_correspondence(results, tol, roles, paper):
    """Where the paper's thresholds (GeLU, Quad) sit among this product's quantities: per model and
    quantity its value, interval and whether the paper's value agrees with it (``criteria.agrees``:
    within its interval or 2σ, never required closer than the claims' tolerance for that kind of
    threshold, the theory's for a theory value and the model's GD threshold's for a δ₅₀).
    Quantities: δ_NN^RS(∞); min_t δ_NN(t) at each N; GD's δ₅₀ at each measured d; the finite-d
    prediction from the early window (docs/escape.md (E20)) at each d, main ρ_c, where built."""
    theory = {r["model"]: r for r in results.read(THEORY_THRESHOLDS)}
    finite_n = results.read(DELTA50_FINITE_N)
    rows = []
    for key in ("gelu", "quad"):
        sweep, model, target = roles[key], roles[f"theory_{key}"], paper[key]

        def add(quantity, value, error, low=math.nan, high=math.nan, *, tolerance, _key=key, _target=target):
            if not math.isfinite(value):
                return  # nothing to compare (e.g. no finite-time crossing on the grid)
            interval = (low, high) if math.isfinite(low) and math.isfinite(high) else None
            row = {
                "model": _key,
                "quantity": quantity,
                "value": value,
                "error": error,
                "low": low,
                "high": high,
            }
            verdict = agrees(value, error, _target, tolerance, interval)
            rows.append(row | {"paper": _target, "tolerance": tolerance, "agrees": verdict})

        for quantity, value, error in _theory_quantities(theory[model]) if model in theory else []:
            add(quantity, value, error, tolerance=tol["theory_threshold"])
        gd = tol[f"{key}_threshold"]
        for f in _fits(results, sweep):
            add(f"GD δ₅₀ at d = {f.d}", f.value, f.error, f.low, f.high, tolerance=gd)
        predicted = [r for r in finite_n if r["sweep"] == sweep and r["reading"] == "linear"]
        main = min((r["rho_c"] for r in predicted), default=math.nan)
        for r in (r for r in predicted if r["rho_c"] == main):
            low, high = r["delta50_predicted_low"], r["delta50_predicted_high"]
            add(
                f"finite-d prediction (E20) at d = {int(r['d'])}",
                r["delta50_predicted"],
                math.nan,
                low,
                high,
                tolerance=gd,
            )
    return rows


def correspondence_text(rows, model):
    """The quantities of ``model`` the paper's value agrees with, in words ("none" if none)."""
    hits = [r["quantity"] for r in rows if r["model"] == model and r["agrees"]]
    return "; ".join(hits) if hits else "none of them"


def claim_theory_threshold(results, tol, paper, correspondence=()):
    rows = {r["model"]: r for r in results.read(THEORY_THRESHOLDS)}
    parts, text = [], []
    for model, target in paper.items():
        if model not in rows:
            parts.append(None)
            continue
        row = rows[model]
        value, error = row["delta_nn_long_time"], row["long_time_numerical_error"]
        parts.append(agrees(value, error, target, tol["theory_threshold"]))
        text.append(
            f"{model}: δ_NN^RS(∞) = {_fmt(value, 5)} ± {_fmt(error, 1)} (numerical; RS state "
            f"{row['long_time_state']}) (paper {target:g})"
        )
    gd = [f"{m}: {finite_size_text(row)}" for m, row in _finite_size(results).items()]
    if gd:
        text.append("GD's threshold, " + "; ".join(gd))
    for key in dict.fromkeys(r["model"] for r in correspondence):
        text.append(f"the paper's {key} value agrees with: {correspondence_text(correspondence, key)}")
    return _row(
        "δ_NN from the theory: " + ", ".join(f"{m} ≈ {t:g}" for m, t in paper.items()),
        "; ".join(text),
        tol["theory_threshold"],
        all_or_some(parts),
        THEORY_THRESHOLDS,
    )


def claim_limit(results, tol):
    """GD's d → ∞ threshold is the theory's, judged only on evidence that holds whatever law δ₅₀(d)
    follows between and beyond the measured d (docs/finite_size.md, (F16)).  Any curve that passes
    through the measured δ₅₀(d) can go on to any limit, or to none, so the likelihood of the cells is
    the same for every limit: no finite d reproduce or contradict a claim about d → ∞, and the verdict
    is undetermined wherever a model with a δ_NN(∞) has a measured δ₅₀ (not tested where none has).
    The row states what the data do determine, δ₅₀ at the largest d with its profile interval (F3)
    against δ_NN(∞), and what the limit laws give, labelled as conditional on them
    (``finite_size_text``)."""
    text = []
    for model, row in _finite_size(results).items():
        limit = row["delta_nn_long_time"]
        value = row.get("delta50_d_max", math.nan)
        if not (math.isfinite(limit) and math.isfinite(value)):
            continue
        low, high = row["delta50_d_max_low"], row["delta50_d_max_high"]
        text.append(
            f"{model}: at d = {int(row['d_max'])} δ₅₀ = {_fmt(value)} {interval(low, high)}, "
            f"δ_NN^RS(∞) − δ₅₀ = {_fmt(limit - value, 2)} {interval(limit - high, limit - low, 2)}; "
            f"{finite_size_text(row)}"
        )
    reason = (
        "undetermined by any finite d: a limit d → ∞ needs an assumption on δ₅₀ beyond the largest d, and "
        "a bound under the power and log laws holds only if the truth is one of them"
    )
    return _row(
        "GD's d → ∞ threshold is the theory's δ_NN(∞) (the phase transition the theory locates)",
        "; ".join(text) + f" ({reason})" if text else "no finite-size model with a theory value",
        tol["finite_size"],
        UNDETERMINED if text else NOT_TESTED,
        FINITE_SIZE_SUMMARY,
    )


def claim_rows(results, tolerance, sweeps, paper):
    """Every claim's row (in the order of the paper's narrative).  ``sweeps``: which sweeps and
    models play which part (``featlearn.pipeline.result_rules.claim_roles``: gelu, quad, gelu_spectral,
    width pairs, hessian activations, theory_gelu, theory_quad); ``paper``: the paper's values
    (gelu, quad, plateau, delta_alg)."""
    rows = [
        claim_delta_alg(results, tolerance, paper),
        claim_threshold(results, tolerance, sweeps["gelu"], paper["gelu"], "gelu_threshold", "GeLU"),
        claim_threshold(results, tolerance, sweeps["quad"], paper["quad"], "quad_threshold", "Quad"),
        claim_theory_threshold(
            results,
            tolerance,
            {sweeps["theory_gelu"]: paper["gelu"], sweeps["theory_quad"]: paper["quad"]},
            paper_correspondence(results, tolerance, sweeps, paper),
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
