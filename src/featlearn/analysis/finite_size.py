"""Finite-size analysis of GD's empirical threshold δ₅₀(d): what the cells of d ≤ d_max decide about
its growth and its limit d → ∞, and what more would decide it (docs/finite_size.md, (F1)–(F13)).

Input: per (d, δ) cell the successes k and trials n (rows like ``<sweep>_cells.csv``, see
``featlearn.analysis.sweeps.cell_summary``; the trials used are ``trials − diverged`` when a
``diverged`` column is present).  A d enters the laws when its own logistic fit
(``thresholds.fit_logistic``, docs/model.md (M10)) has a δ₅₀: status "ok" or "firth", finite error.

- Per d: δ₅₀ with its profile interval (F3), Firth-penalised where the point estimate is.
- Laws of δ₅₀(d) (F4) fitted by the joint binomial likelihood of every cell (``scaling_laws``), a
  free width per d; compared by likelihood ratios and AICc (F6); each checked by predicting the
  largest d from the others (F8, a diagnostic).
- What the data determine: the slope per doubling (linear law), the curvature (quadratic law), the
  width exponent (F7, ``width_scaling``), each with its profile interval (F5).
- δ∞ (F9): identified within the power and log laws only when the profile interval of every limit
  law (their nuisance shape profiled to the linear limit, ν → 0 or d₀ → 0) closes inside the
  declared range (0, ``range_factor`` × max δ₅₀(d)], the better limit law fits the free per-d δ₅₀
  (F9a) and both no-limit alternatives, growth in ln d (F4b) and in ln ln d (F4f), are rejected by
  the same test.  Otherwise "not identified" (their one-sided bound would hold only inside the
  family, and out of it often does not).  No number of δ∞ is written either way: the union of their
  intervals, where identified, covers random limits outside the family in 83 % of cases
  (docs/finite_size.md), short of the 90 % a reported interval must reach; it is returned apart
  (``conditional_limit``), for the benchmark that measures that coverage.  Fewer than
  ``min_points`` usable d: "not tested".  The leave-out (F8) is a diagnostic only.  All of this is
  conditional on the power and log laws: no finite d determine a limit whatever the law (F16), so the
  claim on the limit (``claims.claim_limit``) does not read it; the summary carries what is determined,
  δ₅₀ at the largest d with its profile interval.
- A parametric bootstrap (F10) under each of the two readings compared in (F13) ("δ∞ = δ_NN(∞)" and
  "growth ∝ log d") resamples every cell, refits the asymptotic laws and chooses among them by AICc:
  how often each law is chosen under each reading, i.e. how well the choice tells them apart.
- What would separate two readings within the laws (F13): which added doublings of d and trials per
  cell separate "δ∞ = δ_NN(∞)" from "growth ∝ log d" with 80 % power on expected counts, each priced
  by a caller's cost model (no design decides the limit itself, (F16)).
- The collapse of every d onto one logistic (F11) and the second pass's δ placement (F12).
"""

import argparse
import math
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy import special, stats

from featlearn.analysis import scaling_laws as sl
from featlearn.analysis.thresholds import FITTED, fit_logistic
from featlearn.analysis.width_profile import WidthProfile, delta50_interval, profile_over_width
from featlearn.analysis.width_scaling import fit_width_law

LAWS = sl.LAWS
ASYMPTOTIC = ("constant", "linear", "power", "log")
"""The laws that say where δ₅₀ goes as d → ∞ (a limit, or growth without one), among which AICc
chooses (F6), (F10); the quadratic law only measures the curvature inside the range of d."""

NO_LIMIT_CHECKS = ("linear", "loglog")
"""No-limit laws a limit must exclude before it is identified (F9): growth in ln d (F4b) and in ln ln d
(F4f), which a limit law can mimic over a few decades of d."""

CHECK_LEVEL = 0.05
"""Level of the goodness-of-fit test (F9a): below it a law is rejected."""


# -------------------------------------------------------------------------------------------- cells


@dataclass
class Cells:
    """The cells of one d, sorted by δ: grid, successes and (non-diverged) trials per δ, and the
    censored trials (failures stopped by the step budget, docs/model.md) among them."""

    delta: np.ndarray
    successes: np.ndarray
    trials: np.ndarray
    censored: np.ndarray | None = None


def group_cells(rows):
    """{d: Cells} from rows with keys d, delta, successes, trials (and optionally diverged, whose
    trials are left out of the count, as in ``sweeps.threshold_rows``, and censored), sorted by d
    then δ."""
    out = {}
    for d in sorted({int(round(float(r["d"]))) for r in rows}):
        cells = sorted((r for r in rows if int(round(float(r["d"]))) == d), key=lambda r: float(r["delta"]))
        trials = [int(round(float(r["trials"]) - float(r.get("diverged", 0) or 0))) for r in cells]
        out[d] = Cells(
            np.array([float(r["delta"]) for r in cells]),
            np.array([int(round(float(r["successes"]))) for r in cells]),
            np.array(trials),
            np.array([int(round(float(r.get("censored", 0) or 0))) for r in cells]),
        )
    return out


def per_d_fits(cells):
    """{d: LogisticFit} (docs/model.md, eq. (M10)) for each d of ``cells``."""
    return {d: fit_logistic(c.delta, c.successes, c.trials) for d, c in cells.items()}


def _usable(fit):
    return fit.status in FITTED and np.isfinite(fit.delta50_err) and fit.delta50_err > 0


def usable(fits):
    """The d whose logistic fit has a δ₅₀ with a finite positive error, in increasing order."""
    return [d for d, f in sorted(fits.items()) if _usable(f)]


def per_d_rows(model, cells, fits, level):
    """Per d: δ₅₀ ± s.e., its profile interval (F3) (Firth's where the fit is), the width ± s.e., the
    fit's status, the δ points and the censored trials among that d's cells."""
    rows = []
    for d, f in sorted(fits.items()):
        c = cells[d]
        low, high = delta50_interval(c.delta, c.successes, c.trials, f.delta50, f.status == "firth", level)
        rows.append(
            {
                "model": model,
                "d": int(d),
                "delta50": f.delta50,
                "delta50_err": f.delta50_err,
                "delta50_low": low,
                "delta50_high": high,
                "width": f.scale,
                "width_err": f.scale_err,
                "status": f.status,
                "n_delta": int(c.delta.size),
                "trials": int(c.trials.sum()),
                "censored": int(c.censored.sum()),
                "censored_cells": int(np.count_nonzero(c.censored)),
            }
        )
    return rows


# ------------------------------------------------------------------------------------------- joint


def joint_likelihood(cells, ds):
    """``scaling_laws.JointLikelihood`` of the cells of the d in ``ds`` (F2)."""
    return sl.JointLikelihood(
        {int(d): WidthProfile.from_cells(cells[d].delta, cells[d].successes, cells[d].trials) for d in ds}
    )


def _free(law_fit):
    """Indices of a fit's parameters that are not held at a bound (a shape at the linear limit)."""
    if law_fit.law in sl.LIMIT_LAWS and sl.at_linear_limit(law_fit.params[2]):
        return [0, 1]
    return list(range(len(law_fit.params)))


def prediction(like, law_fit, d):
    """(F8a): f(d; θ̂) and its standard error √(gᵀ Σ g), Σ the inverse of the observed information
    −∂²ℓ/∂θ² of the joint likelihood by central differences (a shape at the linear limit held
    fixed), g = ∂f/∂θ; the error is NaN when the information is not positive definite."""
    theta = np.array(law_fit.params, dtype=float)
    free = _free(law_fit)
    t = np.log2(d / like.d_ref)
    value = float(sl.law_value(law_fit.law, t, theta))
    steps = 1e-4 * np.maximum(np.abs(theta), 1e-2)

    def loglik(x):
        return float(like.at(sl.law_value(law_fit.law, like.t, x)))

    def shifted(pairs):
        x = theta.copy()
        for j, sign in pairs:
            x[j] += sign * steps[j]
        return x

    info = np.zeros((len(free), len(free)))
    grad = np.zeros(len(free))
    for a, i in enumerate(free):
        grad[a] = (
            sl.law_value(law_fit.law, t, shifted([(i, 1)])) - sl.law_value(law_fit.law, t, shifted([(i, -1)]))
        ) / (2 * steps[i])
        for b, j in enumerate(free):
            corners = [loglik(shifted([(i, si), (j, sj)])) * si * sj for si in (1, -1) for sj in (1, -1)]
            info[a, b] = -sum(corners) / (4 * steps[i] * steps[j])
    try:
        np.linalg.cholesky(info)
    except np.linalg.LinAlgError:
        return value, np.nan
    return value, float(np.sqrt(grad @ np.linalg.solve(info, grad)))


def leave_largest_out(cells, ds, laws):
    """(F8) per law of ``laws``: the law fitted on every usable d but the largest, d★, and its
    prediction there against the measurement, z = (δ̂₅₀(d★) − f(d★; θ̂)) / √(σ_pred² + σ★²), σ★ the
    Gaussian width of d★'s profile; NaN with a status where the other d are too few for the law.
    The reduced likelihood and d★'s profile are built once for every law."""
    d_star = ds[-1]
    star = WidthProfile.from_cells(cells[d_star].delta, cells[d_star].successes, cells[d_star].trials)
    base = {"d_left_out": float(d_star), "loo_predicted": np.nan, "loo_predicted_err": np.nan}
    base |= {"loo_measured": star.peak, "loo_measured_err": star.curvature_error(), "loo_z": np.nan}
    reduced = joint_likelihood(cells, ds[:-1]) if len(ds) > 1 else None
    out = {}
    for law in laws:
        if len(ds) - 1 < sl.MIN_D[law]:
            out[law] = base | {"loo_status": f"too few d ({len(ds) - 1})"}
            continue
        value, err = prediction(reduced, sl.fit(reduced, law), d_star)
        z = (star.peak - value) / math.hypot(err, base["loo_measured_err"])
        out[law] = base | {"loo_predicted": value, "loo_predicted_err": err, "loo_z": z, "loo_status": "ok"}
    return out


def information_criteria(fits, n_obs):
    """(F6): {law: (AICc, ΔAICc, Akaike weight)} of the fitted laws (k = law's parameters + one width
    per d, n = cells)."""
    scores = {law: sl.aicc(f.loglik, f.n_params, n_obs) for law, f in fits.items() if f.status == "ok"}
    best = min(scores.values(), default=np.inf)
    weights = {law: math.exp(-0.5 * (v - best)) if np.isfinite(v) else 0.0 for law, v in scores.items()}
    total = sum(weights.values())
    return {law: (v, v - best, weights[law] / total if total else np.nan) for law, v in scores.items()}


NESTED_IN = {
    "linear": ("constant", False),
    "quadratic": ("linear", False),
    "power": ("linear", True),
    "log": ("linear", True),
}
"""Each law's nested simpler law (F6) and whether the nesting point is a boundary (the shape 0, where
the likelihood ratio is ½χ²₀ + ½χ²₁ and its p-value halves)."""


def nested_p_value(fits, law):
    """p-value of the likelihood ratio of ``law`` against the law nested in it (F6); NaN if either is
    not fitted."""
    if law not in NESTED_IN or law not in fits or NESTED_IN[law][0] not in fits:
        return np.nan
    simpler, boundary = NESTED_IN[law]
    lr = 2 * max(fits[law].loglik - fits[simpler].loglik, 0.0)
    p = float(stats.chi2.sf(lr, 1))
    return 0.5 * p if boundary else p


# ---------------------------------------------------------------------------------------- bootstrap


def fit_laws(like, laws):
    """{law: Fit} of the laws that ``like``'s usable d suffice for (``scaling_laws.MIN_D``)."""
    return {law: sl.fit(like, law) for law in laws if like.t.size >= sl.MIN_D[law]}


def choose(fits, laws, n_obs):
    """The AICc choice (F6) among ``laws`` (ties to fewer parameters)."""
    criteria = information_criteria({law: f for law, f in fits.items() if law in laws}, n_obs)
    return min(criteria, key=lambda law: (criteria[law][0], sl.N_PARAMS[law]))


def bootstrap_law_choice(cells, ds, like, centres, laws, n_boot, seed):
    """(F10): under each reading r of ``centres`` ({r: δ₅₀(d) under r}), ``n_boot`` replicates
    k* ~ Binomial(n, σ(β̂_d (δ − δ₅₀,r(d)))) of every cell of the usable d, β̂_d the width profiled at
    δ₅₀,r(d) (as the expected cells of (F13)); in each the laws are refitted and chosen by AICc.
    Returns per reading the frequency of each choice (``boot_<r>_<law>``) and of a limit law
    (``boot_<r>_limit``), and the replicates kept (a replicate with no success or no failure at
    some d is dropped)."""
    rng = np.random.default_rng(list(seed))
    n_obs = sum(cells[d].delta.size for d in ds)
    out = {}
    for reading, centre in centres.items():
        expected = _expected_cells(cells, ds, centre, {})
        chosen = []
        for _ in range(n_boot):
            resampled = {
                d: Cells(c.delta, rng.binomial(c.trials.astype(int), c.successes / c.trials), c.trials)
                for d, c in expected.items()
            }
            if any(c.successes.sum() in (0, c.trials.sum()) for c in resampled.values()):
                continue
            chosen.append(choose(fit_laws(joint_likelihood(resampled, ds), laws), laws, n_obs))
        out[f"boot_{reading}_kept"] = len(chosen)
        for law in laws:
            out[f"boot_{reading}_{law}"] = chosen.count(law) / len(chosen) if chosen else np.nan
        limit = sum(chosen.count(law) for law in sl.LIMIT_LAWS)
        out[f"boot_{reading}_limit"] = limit / len(chosen) if chosen else np.nan
    return out


# ------------------------------------------------------------------------------- what would decide


DECIDE_DOUBLINGS = 6
"""Doublings of the largest d a design may add (d_max·2, …, d_max·2⁶)."""

DECIDE_TRIALS = (30, 100, 300)
"""Trials per cell of a design."""

DECIDE_OFFSETS = np.array([-1.5, -0.75, 0.0, 0.75, 1.5])
"""Cells of a design's new d: its centre ± these multiples of its spread (F13)."""

DECIDE_SIGMA = 2.0
"""The test of one reading against the other: reject at √LR ≥ 2 (one-sided, about 2.3 %)."""

DECIDE_POWER = 0.8
"""The power a deciding design must have under each reading: with √LR ≈ N(σ, 1) for expected
separation σ, P(√LR ≥ DECIDE_SIGMA) = Φ(σ − DECIDE_SIGMA) ≥ 0.8, so σ ≥ 2 + z₀.₈ = 2.84 (σ = 2, the
Asimov median, is 50 % power)."""


def readings(like, law_fits, delta_nn):
    """(F13) The two readings of the data, as δ₅₀(d): "δ∞ = δ_NN(∞)" (the limit law whose profile
    maximum at D = δ_NN(∞) is the better, at that maximum) and "growth ∝ log d" (the linear fit)."""
    t_of = lambda d: np.log2(np.asarray(d, dtype=float) / like.d_ref)  # noqa: E731
    top, c, shape, law = max((*sl.limit_curve(like, law, delta_nn), law) for law in sl.LIMIT_LAWS)
    linear = law_fits["linear"]
    return (
        lambda d: delta_nn - c * sl.decay(law, t_of(d), shape),
        lambda d: sl.law_value("linear", t_of(d), linear.params),
    )


def _expected_cells(cells, ds, centre, new):
    """Expected (Asimov) counts k = n σ((δ − centre(d))/w) at the measured cells (their widths the
    profile's at centre(d)) and at the new ones ({d: (δ, trials, width)})."""
    out = {}
    for d in ds:
        c = cells[d]
        beta = profile_over_width(c.delta, c.successes, c.trials, centre(d))[1][0]
        out[d] = Cells(c.delta, c.trials * special.expit(beta * (c.delta - centre(d))), c.trials)
    for d, (delta, trials, width) in new.items():
        n = np.full(delta.size, float(trials))
        out[d] = Cells(delta, n * special.expit((delta - centre(d)) / width), n)
    return out


def separations(cells, ds, limit, growth, delta_nn, new):
    """(F13) Expected separations (σ = √LR on Asimov data) of the two readings with the ``new``
    cells added: under "δ∞ = δ_NN(∞)", of the linear law (no limit); under "growth", of the limit
    laws' profile at D = δ_NN(∞)."""
    everything = sorted([*ds, *new])
    out = []
    for truth in (limit, growth):
        like = joint_likelihood(_expected_cells(cells, ds, truth, new), everything)
        top = float(like.at(truth(np.array(everything, dtype=float))))
        if truth is limit:
            rival = sl.fit(like, "linear").loglik
        else:
            rival = max(sl.profile_limit(like, law, delta_nn) for law in sl.LIMIT_LAWS)
        out.append(math.sqrt(2 * max(top - rival, 0.0)))
    return out


def power(sigma):
    """(F13a): the probability that √LR ≥ ``DECIDE_SIGMA`` when its expected value is ``sigma``."""
    return float(stats.norm.cdf(sigma - DECIDE_SIGMA))


def decision_designs(cells, ds, like, law_fits, delta_nn, widths, price=None, memory=None):
    """(F13) Per design (the next 1…``DECIDE_DOUBLINGS`` doublings of d_max, ``DECIDE_TRIALS`` per
    cell, five cells per new d around the two readings' crossings): the new d, the separations under
    each reading and their power (F13a) for each width law of ``widths`` (``design_widths``: the
    width exponent's estimate and the ends of its interval; the cells are placed with the first), the
    smallest power over readings and widths, whether it reaches ``DECIDE_POWER``, ``price([(d, δ,
    trials)])`` of the new cells (core-hours) and ``memory`` of the largest new cell (MB per job;
    NaN without)."""
    if not np.isfinite(delta_nn) or "linear" not in law_fits or len(ds) < 2:
        return []
    limit, growth = readings(like, law_fits, delta_nn)
    placing = widths["mu_hat"][1]
    rows = []
    for doublings in range(1, DECIDE_DOUBLINGS + 1):
        new_d = [int(ds[-1]) * 2**j for j in range(1, doublings + 1)]
        for trials in DECIDE_TRIALS:
            grids = {}
            for d in new_d:
                centre = 0.5 * (limit(d) + growth(d))
                spread = max(placing(d), 0.5 * abs(limit(d) - growth(d)))
                grids[d] = np.round(centre + spread * DECIDE_OFFSETS, 3)
            row = {"d_new": ",".join(str(d) for d in new_d), "d_max": new_d[-1], "trials": trials}
            powers = []
            for label in WIDTH_LABELS:
                mu, width = widths.get(label, (np.nan, None))
                row |= {label: mu, f"power_{label}": np.nan}
                if width is None:
                    continue
                new = {d: (delta, trials, width(d)) for d, delta in grids.items()}
                sigmas = separations(cells, ds, limit, growth, delta_nn, new)
                powers += [power(x) for x in sigmas]
                row[f"power_{label}"] = min(power(x) for x in sigmas)
                if label == "mu_hat":
                    row |= {"sigma_limit": sigmas[0], "sigma_growth": sigmas[1]}
            listed = [(d, float(x), trials) for d, delta in grids.items() for x in delta]
            row |= {
                "cells": len(listed),
                "power": min(powers),
                "decides": bool(min(powers) >= DECIDE_POWER),
                "core_hours": price(listed) if price else np.nan,
                "mem_mb": max(memory(d, x) for d, x, _ in listed) if memory else np.nan,
            }
            rows.append(row)
    return rows


def cheapest_decision(rows):
    """The design that decides at ``DECIDE_POWER`` under every width with the fewest core-hours (then
    the smallest d_max and trials); None."""
    deciding = [r for r in rows if r["decides"]]
    return min(deciding, key=lambda r: (r["core_hours"], r["d_max"], r["trials"])) if deciding else None


# ---------------------------------------------------------------------------------------- top level


def law_rows(model, cells, ds, like, fits, level, range_high):
    """Per law: fit, ℓ, AICc, the nested likelihood-ratio p-value, the goodness of fit against free
    per-d δ₅₀ (F9a), the constant's level with its interval (``level``; NaN where the constant is
    rejected, ``constant_rejected``), the parameters, and the leave-out (F8, a diagnostic); and apart,
    {limit law: δ∞'s profile interval (F5)} for (F9), which no row carries (a limit is written
    nowhere, see the module's docstring)."""
    n_obs = sum(cells[d].delta.size for d in ds)
    criteria = information_criteria(fits, n_obs)
    leave_out = leave_largest_out(cells, ds, LAWS)
    rows, intervals = [], {}
    for law in LAWS:
        f = fits.get(law) or sl.Fit(law, (np.nan,) * sl.N_PARAMS[law], np.nan, 0, f"too few d ({len(ds)})")
        params = tuple(f.params) + (np.nan,) * (3 - len(f.params))
        row = {"model": model, "law": law, "status": f.status, "n_d": len(ds), "n_params": f.n_params}
        row |= {"loglik": f.loglik, "aicc": np.nan, "delta_aicc": np.nan, "aicc_weight": np.nan}
        if law in criteria:
            row |= dict(zip(("aicc", "delta_aicc", "aicc_weight"), criteria[law], strict=True))
        row |= {"lr_p": nested_p_value(fits, law), "gof_p": goodness_of_fit_p(like, f)}
        row |= {"a": params[0], "b": params[1], "shape": params[2]}
        row["d0"] = like.d_ref * 2 ** (-1 / params[2]) if law == "log" and f.status == "ok" else np.nan
        row |= {"level": np.nan, "level_low": np.nan, "level_high": np.nan}
        if law in sl.LIMIT_LAWS and f.status == "ok":
            intervals[law] = sl.limit_interval(like, f, level, 0.0, range_high)
        elif law == "constant" and f.status == "ok" and not constant_rejected(like, fits):
            iv = sl.parameter_interval(like, f, 0, level)
            row |= {"level": iv.estimate, "level_low": iv.low, "level_high": iv.high}
        rows.append(row | leave_out[law])
    return rows, intervals


def constant_rejected(like, fits):
    """The constant law (F4a) fails its goodness of fit (F9a) or the likelihood ratio against the
    linear law (F6), at ``CHECK_LEVEL``: its level is then reported nowhere."""
    tests = (goodness_of_fit_p(like, fits["constant"]), nested_p_value(fits, "linear"))
    return any(p < CHECK_LEVEL for p in tests)


def goodness_of_fit_p(like, law_fit):
    """(F9a): the likelihood ratio of a law against free per-d δ₅₀ (a free width per d in both),
    2 (ℓ_sat − ℓ̂_law) ~ χ²(N_d − k_law), k_law the law's parameters; NaN without a fit or dof."""
    dof = like.t.size - sl.N_PARAMS[law_fit.law]
    if dof < 1 or law_fit.status != "ok":
        return np.nan
    return float(stats.chi2.sf(2 * max(like.saturated - law_fit.loglik, 0.0), dof))


def limit_verdict(intervals, fits, like, n_d, min_points):
    """(F9): (status, low, high, check) of δ∞ from the limit laws' profile ``intervals`` and the
    ``fits`` (limit laws and ``NO_LIMIT_CHECKS``), conditional on the power and log laws.
    "identified" when every interval closes, the better limit law passes (F9a) and every no-limit law
    fails it: then the union of the intervals (the smallest low, the largest high); "not identified"
    otherwise, with no number (their one-sided bound holds only if the truth is one of them, and a
    limit approached in another shape breaks it, docs/finite_size.md); "not tested" below
    ``min_points`` usable d.  ``check`` says which condition decided."""
    if n_d < min_points or not intervals:
        return "not tested", np.nan, np.nan, ""
    best = max((fits[law] for law in intervals), key=lambda f: f.loglik)
    best_p = goodness_of_fit_p(like, best)
    if best_p < CHECK_LEVEL:
        return "not identified", np.nan, np.nan, f"the limit laws misfit the per-d δ₅₀ (p = {best_p:.2g})"
    if not all(iv.closed for iv in intervals.values()):
        return "not identified", np.nan, np.nan, "a limit law's interval does not close"
    for law in NO_LIMIT_CHECKS:
        p = goodness_of_fit_p(like, fits[law])
        if not p < CHECK_LEVEL:  # the data do not reject growth without a limit
            return "not identified", np.nan, np.nan, f"{NO_LIMIT_TEXT[law]} fits the per-d δ₅₀ (p = {p:.2g})"
    low = min(iv.low for iv in intervals.values())
    high = max(iv.high for iv in intervals.values())
    return "identified", low, high, "no growth in ln d or ln ln d fits"


NO_LIMIT_TEXT = {"linear": "growth in ln d", "loglog": "growth in ln ln d"}


def finite_size_analysis(
    rows,
    model,
    n_boot=200,
    seed=(0,),
    level=0.95,
    range_factor=4.0,
    min_points=4,
    delta_nn=np.nan,
    price=None,
    memory=None,
    diagnostics=True,
):
    """The finite-size analysis of one model's cells (rows with d, delta, successes, trials
    [, diverged, censored]).  Returns row lists (for ``featlearn.io.results.write_csv``):

      "per_d": per d, δ₅₀ with s.e. and profile interval, the width, status and censored trials;
      "laws": per law (F4)–(F8) (``law_rows``; no δ∞);
      "summary": one row: the d used, slope per doubling, curvature, width exponent (each with its
        profile interval), the likelihood-ratio p-values of a constant and of no limit, the AICc
        choice, δ∞'s status under the limit laws (F9) and the check that decided it (no number),
        δ₅₀ at the largest d with its interval (what (F16) leaves), the
        goodness of fit of each law (F9a), and the bootstrap under the two readings (F10);
      "curves": each fitted law on a grid of d (the figure's lines);
      "decide": (F13) per design, the separations of "δ∞ = ``delta_nn``" and "growth ∝ log d" it
        would reach, their power (F13a) at the width exponent's estimate and the ends of its interval,
        its price (``price``: [(d, δ, trials)] → core-hours) and the memory of its largest job
        (``memory``: (d, δ) → MB); the summary names the cheapest design that separates both with
        80 % power at every width exponent in the interval;
      "collapse", "collapse_quality": (F11) with the measured widths and with the width law;
      "conditional_limit": where (F9) identifies δ∞, the limit laws' union interval (model, low,
        high), which no table writes (it under-covers limits outside the laws; the module docstring).

    ``diagnostics=False`` leaves out the width law (F7), what would decide (F13) and the collapse
    (F11), which δ∞'s verdict does not read (tests/test_finite_size.py runs the verdict many times).
    """
    cells = group_cells(rows)
    fits = per_d_fits(cells)
    ds = usable(fits)
    per_d = per_d_rows(model, cells, fits, level)
    summary = {
        "model": model,
        "level": level,
        "n_d": len(ds),
        "d_min": min(ds, default=np.nan),
        "d_max": max(ds, default=np.nan),
    }
    summary["d_used"] = ",".join(str(int(d)) for d in ds)
    summary["cells"] = int(sum(cells[d].delta.size for d in ds))
    summary["trials"] = int(sum(cells[d].trials.sum() for d in ds))
    at_max = next((r for r in per_d if ds and r["d"] == ds[-1]), {})  # determined whatever the law (F16)
    summary |= {f"delta50_d_max{end}": at_max.get(f"delta50{end}", np.nan) for end in ("", "_low", "_high")}
    if not ds:
        empty = {"laws": [], "curves": [], "decide": [], "collapse": [], "collapse_quality": []}
        empty["conditional_limit"] = []
        return {"per_d": per_d, "summary": [summary | {"limit_status": "not tested"}], **empty}
    like = joint_likelihood(cells, ds)
    n_obs = summary["cells"]
    law_fits = fit_laws(like, LAWS)
    checks = fit_laws(like, NO_LIMIT_CHECKS)
    best = choose(law_fits, ASYMPTOTIC, n_obs)
    range_high = range_factor * float(max(like.peaks))
    laws, intervals = law_rows(model, cells, ds, like, law_fits, level, range_high)
    summary |= _determined(like, law_fits, level)
    summary |= {
        "constant_p": nested_p_value(law_fits, "linear"),
        "no_limit_p": min(
            (nested_p_value(law_fits, law) for law in sl.LIMIT_LAWS if law in law_fits), default=np.nan
        ),
        "aicc_best": best,
        "range_high": range_high,
    }
    status, low, high, check = limit_verdict(intervals, law_fits | checks, like, len(ds), min_points)
    summary |= {"limit_status": status, "limit_check": check}
    conditional = [{"model": model, "low": low, "high": high}] if status == "identified" else []
    summary |= {f"gof_p_{law}": goodness_of_fit_p(like, f) for law, f in (law_fits | checks).items()}
    if len(ds) >= min_points and np.isfinite(delta_nn) and "linear" in law_fits:
        limit, growth = readings(like, law_fits, delta_nn)
        summary |= bootstrap_law_choice(
            cells, ds, like, {"limit": limit, "growth": growth}, ASYMPTOTIC, n_boot, seed
        )
    if not diagnostics:
        return {"per_d": per_d, "laws": laws, "summary": [summary], "conditional_limit": conditional}
    width = fit_width_law(
        {d: cells[d] for d in ds}, like.saturated, level, np.median([fits[d].scale for d in ds])
    )
    summary |= {
        "width_exponent": width.mu,
        "width_exponent_low": width.mu_low,
        "width_exponent_high": width.mu_high,
        "width_law_p": width.p_value,
    }
    width_law = (lambda d: width.width(d, like.d_ref)) if np.isfinite(width.mu) else None
    typical = float(np.median([fits[d].scale for d in ds]))
    decide = []  # two readings need the d that a limit needs (F9), else they are barely constrained
    if len(ds) >= min_points:
        decide = decision_designs(
            cells, ds, like, law_fits, delta_nn, design_widths(width, like, typical), price, memory
        )
    best_design = cheapest_decision(decide)
    summary |= {
        "decide_d_max": best_design["d_max"] if best_design else np.nan,
        "decide_trials": best_design["trials"] if best_design else np.nan,
        "decide_core_hours": best_design["core_hours"] if best_design else np.nan,
        "decide_mem_mb": best_design["mem_mb"] if best_design else np.nan,
        "decide_power": best_design["power"] if best_design else np.nan,
        "decide_searched_d_max": max((r["d_max"] for r in decide), default=np.nan),
        "decide_best_power": max((r["power"] for r in decide), default=np.nan),
    }
    points = collapse_points(cells, fits, width_law)
    quality = [{"model": model, **q} for q in collapse_quality(points, width if width_law else None)]
    return {
        "per_d": per_d,
        "laws": laws,
        "summary": [summary],
        "curves": law_curves(model, like, law_fits),
        "decide": [{"model": model, **r} for r in decide],
        "collapse": [{"model": model, **p} for p in points],
        "collapse_quality": quality,
        "conditional_limit": conditional,
    }


WIDTH_LABELS = ("mu_hat", "mu_low", "mu_high")


def design_widths(width, like, typical):
    """{label: (μ, w(d))} for (F13): the width law (F7) at its estimate μ̂ ("mu_hat") and, anchored at
    the largest d, at the ends of μ's profile interval ("mu_low", "mu_high"; an open end left out);
    a constant width, the median measured one, where (F7) has no estimate."""
    if not np.isfinite(width.mu):
        return {"mu_hat": (0.0, lambda d: typical)}
    anchor = like.ds[-1]
    at_anchor = float(width.width(anchor, like.d_ref))
    out = {"mu_hat": (width.mu, lambda d: width.width(d, like.d_ref))}
    for label, mu in (("mu_low", width.mu_low), ("mu_high", width.mu_high)):
        if np.isfinite(mu):
            out[label] = (mu, lambda d, mu=mu: at_anchor * (np.asarray(d, dtype=float) / anchor) ** (-mu))
    return out


def _determined(like, law_fits, level):
    """What the data determine (F5): the slope per doubling of the linear law and the curvature per
    squared doubling of the quadratic, with their profile intervals (NaN where not fitted)."""
    out = {}
    for key, law, index in (("slope", "linear", 1), ("curvature", "quadratic", 2)):
        f = law_fits.get(law)
        if f is None or f.status != "ok":
            out |= {key: np.nan, f"{key}_low": np.nan, f"{key}_high": np.nan}
            continue
        iv = sl.parameter_interval(like, f, index, level)
        out |= {key: iv.estimate, f"{key}_low": iv.low, f"{key}_high": iv.high}
    return out


def law_curves(model, like, law_fits, points=60, reach=8.0):
    """Rows (model, law, d, value) of each fitted law on a geometric grid from d_min to reach·d_max:
    the lines of the figure (the laws are not extrapolated below the smallest d, where the log law
    can reach its pole d = d₀)."""
    grid = np.geomspace(like.ds.min(), reach * like.ds.max(), points)
    rows = []
    for law, f in law_fits.items():
        if f.status != "ok":
            continue
        value = sl.law_value(law, np.log2(grid / like.d_ref), f.params)
        rows += [
            {"model": model, "law": law, "d": float(x), "value": float(v)}
            for x, v in zip(grid, value, strict=True)
        ]
    return rows


# ------------------------------------------------------------------------------------- second pass


def crossing_estimates(cells, ds):
    """(F12a) Where the ½-crossing lies at each d of ``ds``: {d: (δ̂₅₀(d), ŵ(d), source)}.  At a d
    whose logistic fit is usable, the measured δ₅₀ and width ("measured"); elsewhere the AICc-best
    law (F6) and the width law (F7) at d ("extrapolated"); (NaN, NaN, "none") where either is
    missing (fewer than three usable d)."""
    fits = per_d_fits(cells)
    run = usable(fits)
    out = {}
    law_fit = width = like = None
    if len(run) >= 3:
        like = joint_likelihood(cells, run)
        law_fits = fit_laws(like, ASYMPTOTIC)
        law_fit = law_fits[choose(law_fits, ASYMPTOTIC, sum(cells[d].delta.size for d in run))]
        width = fit_width_law(
            {d: cells[d] for d in run}, like.saturated, 0.95, np.median([fits[d].scale for d in run])
        )
    for target in ds:
        if target in run and np.isfinite(fits[target].scale):
            out[target] = (fits[target].delta50, fits[target].scale, "measured")
        elif law_fit is not None and np.isfinite(width.mu):
            value = float(sl.law_value(law_fit.law, np.log2(target / like.d_ref), law_fit.params))
            out[target] = (value, float(width.width(target, like.d_ref)), "extrapolated")
        else:
            out[target] = (np.nan, np.nan, "none")
    return out


# ----------------------------------------------------------------------------------------- collapse


def binomial_deviance(x, successes, trials):
    """(F11): per-point deviance 2[k ln(k/(nP)) + (n−k) ln((n−k)/(n(1−P)))], P = 1/(1 + e^(−x))."""
    x, k, n = (np.asarray(v, dtype=float) for v in (x, successes, trials))
    log_p, log_q = -np.logaddexp(0.0, -x), -np.logaddexp(0.0, x)
    saturated = special.xlogy(k, k / n) + special.xlogy(n - k, (n - k) / n)
    return 2.0 * (saturated - k * log_p - (n - k) * log_q)


def collapse_points(cells, fits, width_law=None):
    """(F10): one row per cell of a usable d: x = (δ − δ₅₀(d))/w(d) with the measured width, the
    observed fraction, and (with ``width_law``, a function of d) x_power_width with the width law (F7)."""
    rows = []
    for d in sorted(cells):
        fit = fits.get(d)
        if fit is None or not _usable(fit):
            continue
        c = cells[d]
        for delta, k, n in zip(c.delta, c.successes, c.trials, strict=True):
            if n <= 0:
                continue
            row = {
                "d": int(d),
                "delta": float(delta),
                "successes": int(k),
                "trials": int(n),
                "fraction": float(k / n),
                "x": float((delta - fit.delta50) / fit.scale),
            }
            if width_law is not None:
                row["x_power_width"] = float((delta - fit.delta50) / width_law(d))
            rows.append(row)
    return rows


def collapse_quality(points, width_law=None):
    """(F11) of the collapse points: one row per width ("measured"; "power_law" when the points carry
    x_power_width, with ``width_law`` the fitted (F7)) with D, N, dof, D/N and D/dof."""
    out = []
    n_d = len({p["d"] for p in points})
    k = np.array([p["successes"] for p in points], dtype=float)
    n = np.array([p["trials"] for p in points], dtype=float)
    variants = [("measured", "x", 2 * n_d)]
    if width_law is not None and points and "x_power_width" in points[0] and np.isfinite(width_law.mu):
        variants.append(("power_law", "x_power_width", n_d + 2))
    for width, key, n_params in variants:
        x = np.array([p[key] for p in points], dtype=float)
        dev = float(binomial_deviance(x, k, n).sum()) if points else np.nan
        dof = len(points) - n_params
        row = {
            "width": width,
            "n_points": len(points),
            "n_d": n_d,
            "deviance": dev,
            "dof": dof,
            "deviance_per_point": dev / len(points) if points else np.nan,
            "deviance_per_dof": dev / dof if dof > 0 else np.nan,
        }
        if width == "power_law":
            row.update(w0=width_law.w0, mu=width_law.mu, mu_low=width_law.mu_low, mu_high=width_law.mu_high)
        out.append(row)
    return out


def refined_grid(existing, centre, width, offsets, step):
    """(F12b) The δ of a second pass at one d: δ̂₅₀ + u·ŵ for u in ``offsets``, rounded to multiples of
    ``step``, positive, joined with the δ already run there (``existing``, kept so that every
    completed block is reused); ``existing`` alone without an estimate."""
    if not (np.isfinite(centre) and np.isfinite(width)):
        return sorted(existing)
    new = {round(round((centre + u * width) / step) * step, 10) for u in offsets}
    return sorted({float(v) for v in existing} | {v for v in new if v > 0})


# -------------------------------------------------------------------------------------- entry point


def _text(x, digits=3):
    if x is None or np.isnan(x):
        return "—"
    return f"{x:.{digits}g}" if np.isfinite(x) else ("inf" if x > 0 else "-inf")


def _with_interval(row, key):
    return f"{_text(row.get(key))} [{_text(row.get(key + '_low'))}, {_text(row.get(key + '_high'))}]"


def report(out):
    """The analysis as text: per d, the laws and the summary (what ``main`` prints)."""
    lines = []
    for s in out["summary"]:
        lines.append(f"model {s['model']}: d = {s['d_used']} ({s['cells']} cells, {s['trials']} trials)")
    for r in out["per_d"]:
        lines.append(
            f"  d = {r['d']}: delta50 = {_with_interval(r, 'delta50')}  width {_text(r['width'])}"
            f"  ({r['status']}, {r['censored']} censored)"
        )
    lines.append(
        "  law        loglik     dAICc  LR p    fit p   constant's level [95%]               leave-out z"
    )
    for r in out["laws"]:
        level = _with_interval(r, "level") if r["law"] == "constant" else ""  # NaN (—) where rejected
        lines.append(
            f"  {r['law']:<10} {_text(r['loglik'], 6):>9}  {_text(r['delta_aicc']):>6}"
            f"  {_text(r['lr_p'], 2):>6}  {_text(r['gof_p'], 2):>6}  {level:<36}"
            f" {_text(r.get('loo_z', np.nan), 2)}"
        )
    for s in out["summary"]:
        lines += [
            f"  slope per doubling {_with_interval(s, 'slope')}",
            f"  curvature per squared doubling {_with_interval(s, 'curvature')}",
            f"  width exponent {_with_interval(s, 'width_exponent')}",
            f"  constant: p = {_text(s.get('constant_p'), 2)};"
            f" no limit: p = {_text(s.get('no_limit_p'), 2)}; AICc choice {s.get('aicc_best')}",
            f"  delta_inf: not determined by d <= {_text(s.get('d_max'), 6)} whatever the law (F16);"
            f" delta50(d_max) = {_with_interval(s, 'delta50_d_max')}",
            f"  delta_inf under the power and log laws only: {s['limit_status']}, no number"
            " (their interval under-covers limits of other shapes;"
            f" declared range (0, {_text(s.get('range_high'))}]; {s.get('limit_check', '')};"
            f" growth in ln ln d fits with p = {_text(s.get('gof_p_loglog'), 2)})",
        ]
        if "boot_limit_limit" in s:
            lines.append(
                f"  bootstrap: a limit law chosen in {_text(s['boot_limit_limit'], 2)} of"
                f" {s['boot_limit_kept']} replicates under 'delta_inf = delta_NN(inf)' and in"
                f" {_text(s['boot_growth_limit'], 2)} of {s['boot_growth_kept']} under 'growth'"
            )
    return "\n".join(lines)


def main(argv=None):
    """``python -m featlearn.analysis.finite_size CELLS.csv …``: the analysis of any cells tables
    (one per sweep, or several holding the same sweep, e.g. a cluster run beside the quick one),
    printed per sweep; ``--delta-nn SWEEP=VALUE`` gives a sweep the δ_NN(∞) its bootstrap (F10) and
    designs (F13) compare with; ``--out DIR`` writes its tables too."""
    from featlearn.io.results import read_csv, write_csv

    parser = argparse.ArgumentParser(
        prog="python -m featlearn.analysis.finite_size", description=main.__doc__
    )
    parser.add_argument(
        "cells", nargs="+", type=Path, help="<sweep>_cells.csv tables (columns d, delta, successes, trials)"
    )
    parser.add_argument(
        "--delta-nn",
        action="append",
        default=[],
        metavar="SWEEP=VALUE",
        help="delta_NN(inf) of a sweep: the two readings of the bootstrap (F10) and of (F13) need it",
    )
    parser.add_argument(
        "--bootstrap",
        type=int,
        default=200,
        help="bootstrap replicates (F10), for the sweeps given --delta-nn",
    )
    parser.add_argument("--level", type=float, default=0.95, help="level of every interval")
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument(
        "--range-factor", type=float, default=4.0, help="declared range of delta_inf: (0, this x max delta50]"
    )
    parser.add_argument("--min-points", type=int, default=4, help="usable d needed to judge delta_inf")
    parser.add_argument("--out", type=Path, help="directory for the tables (finite_size_<part>.csv)")
    args = parser.parse_args(argv)
    delta_nn = {}
    for item in args.delta_nn:
        sweep, sep, value = item.partition("=")
        if not sep:
            parser.error(f"--delta-nn takes SWEEP=VALUE, got {item!r}")
        delta_nn[sweep] = float(value)
    by_sweep = {}
    for path in args.cells:
        for r in read_csv(path):
            by_sweep.setdefault(str(r.get("sweep") or path.stem.removesuffix("_cells")), []).append(r)
    tables = {}
    for sweep, sweep_rows in by_sweep.items():
        out = finite_size_analysis(
            sweep_rows,
            sweep,
            args.bootstrap,
            (args.seed,),
            args.level,
            args.range_factor,
            args.min_points,
            delta_nn.get(sweep, np.nan),
        )
        print(report(out))
        for part, part_rows in out.items():
            if part != "conditional_limit":  # written nowhere (the module docstring)
                tables.setdefault(part, []).extend(part_rows)
    if args.out:
        for part, part_rows in tables.items():
            write_csv(args.out / f"finite_size_{part}.csv", part_rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
