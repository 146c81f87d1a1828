"""The escape's anatomy, summarised (docs/escape.md, "The anatomy of an escape", (E16)–(E18)): per
trial, when and how the hard coordinate grew, and per (sweep, d, δ) cell which mechanism the trials
support.

Per trial (arrays of an anatomy cell, ``cells.anatomy``), over its states before the escape step t_e
(all its states when it never escapes):

* aligned: some recorded eigenvalue is negative with hard overlap² ≥ 0.1 (``criteria.negative_aligned``);
* the aligned window: the steps before the first recorded state without an aligned negative
  eigenvalue, t_w (E16b); the trial's ρ and |u| at t_w, and whether it escaped inside the window;
* the undriven share of the growth: with Δ_s = ln|u^{s'}| − ln|u^s| between consecutive recorded
  steps s < s', the part of G = ln|u^{t_e}/u^0| accrued on intervals whose first state has neither
  θ*ᵀHθ* < 0 nor an aligned negative eigenvalue,

      share = Σ_{s undriven} Δ_s / G    (successful trials with G > 0)                          (E16)

* localised: the aligned eigenvector's largest single sample carries ≥ half its negative curvature
  (``cells.anatomy.localisation``, (E14));
* what seeds it (E16c): whether the trial's run from its start without the hard component (u⁰ = 0)
  and its run from a fresh start, both on its own data (``cells.anatomy.reseeded_runs``), end with
  the same outcome as the trial.  If the outcome did not depend on the data set, a fresh start would
  agree with probability p² + (1 − p)², p the cell's success probability (estimated from the
  trials' and the fresh starts' outcomes together): the chance agreement; and how well the size
  of the data's first Hermite score |z₁| (E16d) separates successes from failures.  These count the
  trials of contested cells only (some run succeeds, some fails).

A cell's mechanism (E18) names each reading its data support: (i) aligned negative curvature before
escape in most successful trials (the binomial interval's lower end above ½), (ii) escape from the
plateau (t_e after the restricted run's plateau step in most successes), (iii) localised aligned
directions (most aligned states), (iv) most of the growth undriven (median share > ½), (v) the
initial hard coordinate does not seed the escape (the interval of the successes that succeed again
from u⁰ = 0 lies above ½), (vi) the data set matters (the interval of the fresh starts' agreement
with their trials lies above the chance agreement).  Pooled over every cell of a sweep at one d,
and at every d together (:func:`pooled_rows`), each reading's share carries its interval (E17) and
is supported (interval above its level: ½, for (vi) the chance agreement), excluded (below it) or
undetermined; the shares of (i)–(v) are of the successful trials (of contested cells for (v)), that
of (vi) of all trials of contested cells; there (i) is "the growth is driven": share (E16) ≤ ½.
"""

import math

import numpy as np
from scipy import optimize, stats

from featlearn.analysis.criteria import finite_median, negative_aligned

LOCALISED_SHARE = 0.5
"""An eigenvector is localised when one sample carries at least this share of its negative curvature."""
LEVEL = 0.95


def binomial_interval(k, n, level=LEVEL):
    """The likelihood-ratio interval of a binomial proportion, {p : 2(ℓ(k/n) − ℓ(p)) ≤ χ²₁(level)} with
    ℓ(p) = k ln p + (n − k) ln(1 − p)  (E17); (NaN, NaN) when n = 0."""
    if n == 0:
        return math.nan, math.nan
    cut = stats.chi2.ppf(level, 1) / 2

    def loglik(p):
        return stats.binom.logpmf(k, n, p)

    top = loglik(k / n)

    def gap(p):
        return top - loglik(p) - cut

    low = 0.0 if k == 0 else optimize.brentq(gap, 1e-15, k / n)
    high = 1.0 if k == n else optimize.brentq(gap, k / n, 1 - 1e-15)
    return low, high


def chance_agreement(own, fresh):
    """p² + (1 − p)², p the success fraction of the trials' (``own``) and the fresh starts'
    (``fresh``) outcomes together: how often a fresh start would agree with its trial if the outcome
    did not depend on the data set (E16c)."""
    p = float(np.mean(np.concatenate([np.asarray(own, bool), np.asarray(fresh, bool)])))
    return p**2 + (1 - p) ** 2


def seed_flags(cell):
    """Per trial of an anatomy cell (E16c): whether its run from u⁰ = 0 succeeds, whether its fresh
    start's outcome is its own; and the cell's chance agreement (:func:`chance_agreement`)."""
    own = np.asarray(cell["success"], bool)
    zero_u = np.asarray(cell["zero_u_final_rho"]) >= cell["success_rho"]
    fresh = np.asarray(cell["reinit_final_rho"]) >= cell["success_rho"]
    return zero_u, fresh == own, chance_agreement(own, fresh)


def trial_summaries(cell):
    """One dict per trial of an anatomy cell: its outcome and the quantities of the module docstring."""
    out = []
    lr = float(cell["lr"])
    zero_u, agrees, chance = seed_flags(cell)
    for i in range(cell["steps"].shape[0]):
        valid = cell["steps"][i] >= 0
        t = cell["steps"][i, valid]
        escape = int(cell["escape_step"][i])
        pre = t < escape if escape >= 0 else np.ones(t.size, bool)
        lam, ov = cell["full_eigenvalues"][i, valid], cell["full_overlap2"][i, valid]
        aligned = negative_aligned(lam, ov).any(axis=1)
        h11 = cell["full_h11"][i, valid]
        u = np.abs(cell["full_u"][i, valid])
        w = aligned_window_end(aligned, pre)
        first = t[pre & aligned]
        summary = {
            "success": bool(cell["success"][i]),
            "escape_step": escape,
            "plateau_step": int(cell["plateau_step"][i]),
            "aligned_before": bool(first.size),
            "first_aligned": int(first[0]) if first.size else -1,
            "window_end": int(t[w]),
            "escaped_in_window": bool(escape >= 0 and t[w] >= escape),
            "rho_window": float(cell["full_rho"][i, valid][w]),
            "u_window": float(u[w]),
            "restricted_aligned_before": bool(
                negative_aligned(
                    cell["restricted_eigenvalues"][i, valid], cell["restricted_overlap2"][i, valid]
                )
                .any(axis=1)[pre]
                .any()
            ),
            "undriven_share": math.nan,
            "localised": [],
            "growth_exponent": growth_exponent(t[pre], aligned_minimum(lam, ov)[pre], lr),
            "zero_u_success": bool(zero_u[i]),
            "reinit_agrees": bool(agrees[i]),
            "chance_agreement": chance,
            "data_z1": float(cell["data_z1"][i]),
        }
        if summary["success"] and escape >= 0:
            upto = t <= escape
            growth = np.diff(np.log(np.maximum(u[upto], 1e-300)))
            driven = ((h11 < 0) | aligned)[upto][:-1]
            total = growth.sum()
            if total > 0:
                summary["undriven_share"] = float(growth[~driven].sum() / total)
        share = cell["full_top_share"][i, valid]
        for j in np.flatnonzero(pre & aligned):
            which = np.flatnonzero(negative_aligned(lam[j], ov[j]))[0]
            summary["localised"].append(share[j, which] >= LOCALISED_SHARE)
        out.append(summary)
    return out


def aligned_window_end(aligned, pre):
    """Index of t_w, the first recorded state without an aligned negative eigenvalue (E16b): the
    end of the aligned window; the first state after ``pre`` (the escape) if the window lasts until
    then, the last state if it outlasts the trial; 0 if no state is aligned."""
    lost = np.flatnonzero(~aligned)
    return int(lost[0]) if lost.size and lost[0] <= pre.sum() else min(int(pre.sum()), aligned.size - 1)


def growth_exponent(steps, minima, lr):
    """Γ = Σ_s ln(1 + η·max(−λ_s, 0))·(s' − s) over consecutive recorded steps s < s', λ_s = ``minima``
    the most negative aligned eigenvalue at s (0 where none, :func:`aligned_minimum`): the growth
    exponent the aligned negative curvature alone would give a component along its eigenvector
    (E16a)."""
    rate = np.log1p(lr * np.maximum(-np.asarray(minima, float), 0.0))
    return float(np.sum(rate[:-1] * np.diff(steps)))


def aligned_minimum(eigenvalues, overlap2):
    """Per recorded state (last axis: the recorded eigenpairs), the most negative aligned eigenvalue
    (``criteria.negative_aligned``; 0 where none)."""
    return np.where(negative_aligned(eigenvalues, overlap2), eigenvalues, 0.0).min(axis=-1)


def _fraction(flags):
    k, n = int(sum(flags)), len(flags)
    low, high = binomial_interval(k, n)
    return k, n, low, high


def _share_columns(name, flags, of=True):
    """The columns of a share of ``flags``: ``name`` (k), ``name_low``, ``name_high`` (its interval
    (E17)) and, with ``of``, ``name_of`` (n)."""
    k, n, low, high = _fraction(flags)
    return {name: k, **({f"{name}_of": n} if of else {}), f"{name}_low": low, f"{name}_high": high}


def separation(success, failure):
    """P(X > Y) + ½P(X = Y) for X a successful and Y a failed trial's value (the rank statistic of
    how well the value separates the outcomes; NaN when either group is empty)."""
    if not success or not failure:
        return math.nan
    x, y = np.asarray(success)[:, None], np.asarray(failure)[None, :]
    return float(np.mean((x > y) + 0.5 * (x == y)))


def mechanism(row):
    """(E18): the readings (i)–(vi) the cell's data support, joined by '+'; 'none identified' when
    none, 'no escape' when no trial succeeded."""
    if row["successes"] == 0:
        return "no escape"
    parts = []
    if row["aligned_success_low"] > 0.5:
        parts.append("(i) aligned negative curvature before escape")
    if row["from_plateau"] > row["successes"] / 2:
        parts.append("(ii) escape from the plateau")
    if row["localised_states"] and row["localised_fraction"] > 0.5:
        parts.append("(iii) localised spikes")
    if row["undriven_share_median"] > 0.5:
        parts.append("(iv) growth without negative curvature")
    if row["zero_u_kept_low"] > 0.5:
        parts.append("(v) not seeded by the initial hard coordinate")
    if row["reinit_agree_low"] > row["chance_agree"]:
        parts.append("(vi) the data set matters")
    return " + ".join(parts) or "none identified"


def seed_columns(summaries, of=True):
    """(E16c) over the trials of contested cells (some run of the cell, a trial or a fresh start,
    succeeds and some fails: where every run ends alike, nothing tells what seeded it): the share
    columns (:func:`_share_columns`) of the successes that succeed again from u⁰ = 0
    (``zero_u_kept``) and of the trials whose fresh start agrees with them (``reinit_agree``); the mean
    chance agreement of their cells (``chance_agree``); and :func:`separation` of the successes' and
    the failures' |z₁| (E16d, ``z1_separation``)."""
    summaries = [x for x in summaries if x["chance_agreement"] < 1]
    won = [x for x in summaries if x["success"]]
    lost = [x for x in summaries if not x["success"]]
    return {
        "z1_separation": separation([abs(x["data_z1"]) for x in won], [abs(x["data_z1"]) for x in lost]),
        **_share_columns("zero_u_kept", [x["zero_u_success"] for x in won], of),
        **_share_columns("reinit_agree", [x["reinit_agrees"] for x in summaries], of),
        "chance_agree": float(np.mean([x["chance_agreement"] for x in summaries])) if summaries else math.nan,
    }


def cell_row(sweep, cell, summaries=None):
    """One row of ``escape_anatomy.csv`` for an anatomy cell."""
    s = summaries if summaries is not None else trial_summaries(cell)
    won = [x for x in s if x["success"]]
    lost = [x for x in s if not x["success"]]
    escapes = [x["escape_step"] for x in won]
    k, n, low, high = _fraction([x["aligned_before"] for x in won])
    kf, nf, lowf, highf = _fraction([x["aligned_before"] for x in lost])
    localised = [flag for x in won for flag in x["localised"]]
    row = {
        "sweep": sweep,
        "d": int(cell["d"]),
        "delta": float(cell["delta"]),
        "trials": len(s),
        "successes": len(won),
        "escape_step_median": finite_median(escapes),
        "escape_step_q25": float(np.percentile(escapes, 25)) if escapes else math.nan,
        "escape_step_q75": float(np.percentile(escapes, 75)) if escapes else math.nan,
        "plateau_step_median": finite_median([x["plateau_step"] for x in s if x["plateau_step"] >= 0]),
        "from_plateau": sum(0 <= x["plateau_step"] <= x["escape_step"] for x in won),
        "aligned_success": k,
        "aligned_success_low": low,
        "aligned_success_high": high,
        "aligned_failure": kf,
        "failures": nf,
        "aligned_failure_low": lowf,
        "aligned_failure_high": highf,
        "restricted_aligned_success": sum(x["restricted_aligned_before"] for x in won),
        "first_aligned_median": finite_median([x["first_aligned"] for x in won if x["first_aligned"] >= 0]),
        "window_end_median": finite_median([x["window_end"] for x in s]),
        "escaped_in_window": sum(x["escaped_in_window"] for x in won),
        "rho_window_success": finite_median([x["rho_window"] for x in won]),
        "rho_window_failure": finite_median([x["rho_window"] for x in lost]),
        "rho_window_separation": separation([x["rho_window"] for x in won], [x["rho_window"] for x in lost]),
        "growth_exponent_success": finite_median([x["growth_exponent"] for x in won]),
        "growth_exponent_failure": finite_median([x["growth_exponent"] for x in lost]),
        "undriven_share_median": finite_median([x["undriven_share"] for x in won]),
        "localised_states": len(localised),
        "localised_fraction": float(np.mean(localised)) if localised else math.nan,
        "neg_weight_start": float(np.nanmean(cell["full_neg_weight"][:, 0])),
        "h11_start": float(np.nanmean(cell["full_h11"][:, 0])),
        "n_neg_start": float(np.nanmean(cell["full_n_neg"][:, 0])),
        **seed_columns(s, of=False),
    }
    row["mechanism"] = mechanism(row)
    return row


def pooled_rows(sweep, summaries_by_d):
    """The rows of ``escape_anatomy_verdict.csv`` for a sweep: per d its cells' trials pooled
    (:func:`pooled_row`), then, with more than one d, every d together (d = "all");
    ``summaries_by_d``: {d: trial summaries}."""
    rows = [pooled_row(sweep, d, summaries) for d, summaries in sorted(summaries_by_d.items())]
    if len(rows) == 1:
        return rows
    return rows + [pooled_row(sweep, "all", [s for group in summaries_by_d.values() for s in group])]


def pooled_row(sweep, d, summaries):
    """One row of ``escape_anatomy_verdict.csv``: the trials ``summaries`` of a sweep's cells at ``d``
    pooled, each reading's share with its interval (E17), and the verdict (E18) on the pooled shares."""
    won = [x for x in summaries if x["success"]]
    lost = [x for x in summaries if not x["success"]]
    shares = [x["undriven_share"] for x in won if math.isfinite(x["undriven_share"])]
    states = [flag for x in won for flag in x["localised"]]
    row = {"sweep": sweep, "d": d, "trials": len(summaries), "successes": len(won)}
    for name, flags in (
        ("aligned_before", [x["aligned_before"] for x in won]),
        ("aligned_failure", [x["aligned_before"] for x in lost]),
        ("from_plateau", [0 <= x["plateau_step"] <= x["escape_step"] for x in won]),
        ("driven", [s <= 0.5 for s in shares]),
        ("undriven", [s > 0.5 for s in shares]),
        ("localised_states", states),
    ):
        row.update(_share_columns(name, flags))
    row["rho_window_success"] = finite_median([x["rho_window"] for x in won])
    row["rho_window_failure"] = finite_median([x["rho_window"] for x in lost])
    row["rho_window_separation"] = separation([x["rho_window"] for x in won], [x["rho_window"] for x in lost])
    row.update(seed_columns(summaries))
    row["mechanism"] = pooled_mechanism(row)
    return row


def pooled_mechanism(row):
    """(E18) on pooled shares: a reading is supported when its share's interval lies above its level
    (½; for (vi) the chance agreement), excluded when below it, else undetermined; the supported ones
    joined by '+', the excluded listed."""
    readings = (
        ("(i) aligned negative curvature drives the growth", "driven", 0.5),
        ("(ii) escape from the plateau", "from_plateau", 0.5),
        ("(iii) localised spikes", "localised_states", 0.5),
        ("(iv) growth without negative curvature", "undriven", 0.5),
        ("(v) not seeded by the initial hard coordinate", "zero_u_kept", 0.5),
        ("(vi) the data set matters", "reinit_agree", row["chance_agree"]),
    )
    supported = [text for text, key, level in readings if row[f"{key}_low"] > level]
    excluded = [text.split(" ")[0] for text, key, level in readings if row[f"{key}_high"] < level]
    return (" + ".join(supported) or "none supported") + (
        f"; excluded: {', '.join(excluded)}" if excluded else ""
    )
