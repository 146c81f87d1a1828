"""Claim 14 and what the finite-size analysis reports, on truths drawn from classes that no law of
the analysis contains, on the product's path: ``finite_size_analysis`` → ``claims.claim_limit``
(docs/finite_size.md, (F9), (F16)).

Truth classes (one random curve per replicate, in t = log₂(d/100), kept apart from the fit: nothing
here is a law of ``scaling_laws``):

- limit: a random monotone curve that reaches its limit δ∞ ~ U(8.5, 10.5) at a random t_reach ~ U(2, 16)
  doublings and stays there: rise A ~ U(1, 4) from t = 0, split over 8 equal pieces of [0, t_reach] by
  Dirichlet(α) weights, α ~ U(0.3, 3) (piecewise linear, concave or not; approaches faster than any
  power where t_reach falls inside the measured d);
- growth: random slow growth without a limit: δ₅₀(0) ~ U(5, 7), slope per doubling b_min + g_k on
  doubling k, b_min ~ U(0.03, 0.2) (so δ₅₀ → ∞) and g_k ≥ 0 Gamma(0.5) × U(0, 0.3) × a random
  decay 1/(1 + k)^q, q ~ U(0, 2).

Designs: "docs" (d = 250 … 4000, five cells per d at δ₅₀(d) + w(d){0, ±0.75, ±1.5} shifted by a uniform
±½ w(d), 30 trials), "sparse" (the same d, 5–7 cells per d spread over ±1.5 w(d) and shifted alike,
10–12 trials), "default" (the default config's sweep: d = 250, 500, 1000, δ = 5, 6, 6.5, 7, 8, 10
shifted by the truth's δ₅₀(250) − 6.5, 10 trials) and "wide" (d = 100 … 102 400, as "docs").  Widths
w(d) = 0.8 (d/250)^(−0.35) (GeLU's).  δ_NN(∞) = 9.52, tolerance 0.5: claim 14 is true where
|δ∞ − 9.52| ≤ 0.5 (limit class), false otherwise.

Per class and design: replicates, crashes, wrong claim-14 verdicts ("reproduced" on a false claim,
"not reproduced" on a true one), beside them the wrong verdicts the limit laws' identified interval
would give if it decided (reproduced where, widened by the tolerance, it holds δ_NN(∞), not reproduced
otherwise), the verdicts, how often the limit laws identify δ∞ (F9) and how often that interval,
labelled "under the power and log laws", covers the truth, and the coverage of the true δ₅₀(d_max) by
its profile interval (F3), the statement claim 14 rests on.

    python benchmarks/finite_size_verdicts.py [--replicates 100] [--designs docs sparse default wide]
"""

import argparse
import itertools
import math

import numpy as np

from featlearn.analysis import claims
from featlearn.analysis.finite_size import finite_size_analysis

D_MIN = 100.0
DOCS_D = (250, 500, 1000, 2000, 4000)
DESIGNS = {
    "docs": DOCS_D,
    "sparse": DOCS_D,
    "default": (250, 500, 1000),
    "wide": tuple(100 * 2**k for k in range(11)),
}
OFFSETS = np.array([-1.5, -0.75, 0.0, 0.75, 1.5])
DEFAULT_GRID = np.array([5.0, 6.0, 6.5, 7.0, 8.0, 10.0])
"""The default config's GeLU δ grid, centred on 6.5; a truth's replicate moves it to its δ₅₀(250)."""
DELTA_NN = 9.52
TOLERANCE = {"finite_size": 0.5}
CLASSES = ("limit", "growth")


def limit_curve(rng):
    """(δ₅₀(d), δ∞) of the limit class: monotone, piecewise linear in log₂ d, reaching δ∞ at t_reach."""
    limit, rise, t_reach = rng.uniform(8.5, 10.5), rng.uniform(1, 4), rng.uniform(2, 16)
    knots = np.linspace(0.0, t_reach, 9)
    values = (
        limit
        - rise
        + rise * np.concatenate([[0.0], np.cumsum(rng.dirichlet(np.full(8, rng.uniform(0.3, 3))))])
    )
    return (lambda d: np.interp(np.log2(np.asarray(d, dtype=float) / D_MIN), knots, values)), limit


def growth_curve(rng):
    """(δ₅₀(d), ∞) of the growth class: slope per doubling b_min + g_k ≥ b_min > 0 on doubling k."""
    start, b_min = rng.uniform(5, 7), rng.uniform(0.03, 0.2)
    k = np.arange(40)
    extra = rng.gamma(0.5, 1.0, k.size) * rng.uniform(0, 0.3) / (1 + k) ** rng.uniform(0, 2)
    values = start + np.concatenate([[0.0], np.cumsum(b_min + extra)])
    return (
        lambda d: np.interp(np.log2(np.asarray(d, dtype=float) / D_MIN), np.arange(values.size), values)
    ), (math.inf)


CURVES = {"limit": limit_curve, "growth": growth_curve}


def width(d):
    return 0.8 * (d / 250) ** -0.35


def cells(centre, design, rng):
    """Rows (d, delta, successes, trials) of ``design`` under δ₅₀(d) = ``centre(d)``."""
    rows = []
    for d in DESIGNS[design]:
        w, c = width(d), float(centre(d))
        if design == "default":
            delta, trials = DEFAULT_GRID + float(centre(250)) - 6.5, 10
        elif design == "sparse":
            offsets = np.linspace(-1.5, 1.5, int(rng.integers(5, 8)))
            delta, trials = c + w * (offsets + rng.uniform(-0.5, 0.5)), int(rng.integers(10, 13))
        else:
            delta, trials = c + w * (OFFSETS + rng.uniform(-0.5, 0.5)), 30
        delta = np.round(delta, 3)
        p = 1 / (1 + np.exp(-(delta - c) / w))
        for x, k in zip(delta, rng.binomial(trials, p), strict=True):
            rows.append({"d": d, "delta": float(x), "successes": int(k), "trials": trials})
    return rows


def replicate(truth_class, design, rng):
    """One truth of the class and one data set through the product's path: (summary row with the
    limit laws' conditional interval as delta_inf_low/high where identified, claim-14 verdict, δ∞ of
    the truth, its δ₅₀ at the design's largest d)."""
    centre, limit = CURVES[truth_class](rng)
    data = cells(centre, design, rng)
    out = finite_size_analysis(data, truth_class, n_boot=0, diagnostics=False)
    row = out["summary"][0] | {"delta_nn_long_time": DELTA_NN}
    for conditional in out["conditional_limit"]:
        row |= {"delta_inf_low": conditional["low"], "delta_inf_high": conditional["high"]}
    results = claims.Results(
        read=lambda name: [row] if name == "finite_size_summary.csv" else [], grokking=None
    )
    return row, claims.claim_limit(results, TOLERANCE)["verdict"], limit, float(centre(DESIGNS[design][-1]))


def wrong(limit, verdict):
    """Claim 14 ("the limit is δ_NN(∞)") is true for a limit within the tolerance of δ_NN(∞)."""
    true = math.isfinite(limit) and abs(limit - DELTA_NN) <= TOLERANCE["finite_size"]
    return verdict == (claims.NOT_REPRODUCED if true else claims.REPRODUCED)


def covers(low, high, value):
    """low ≤ value ≤ high, a NaN side open."""
    return (math.isnan(low) or low <= value) and (math.isnan(high) or value <= high)


def laws_verdict(row):
    """The verdict the limit laws' identified interval would give if it decided (it does not, (F16)):
    reproduced where, widened by the tolerance, it holds δ_NN(∞), not reproduced where it does not,
    undetermined where it is not identified."""
    if row["limit_status"] != "identified":
        return claims.UNDETERMINED
    low, high, tol = row["delta_inf_low"], row["delta_inf_high"], TOLERANCE["finite_size"]
    return claims.REPRODUCED if low - tol <= DELTA_NN <= high + tol else claims.NOT_REPRODUCED


def table(truth_class, design, replicates, seed):
    """{replicates, crashes, wrong, laws_wrong (``laws_verdict``), verdicts, identified and at_d_max
    (each (reported, covering the truth))} over seeded replicates of one class on one design."""
    rng = np.random.default_rng([seed, CLASSES.index(truth_class), list(DESIGNS).index(design)])
    out = {"replicates": replicates, "crashes": 0, "wrong": 0, "laws_wrong": 0, "verdicts": {}}
    out |= {"identified": [0, 0], "at_d_max": [0, 0]}
    for _ in range(replicates):
        try:
            row, verdict, limit, at_max = replicate(truth_class, design, rng)
        except Exception:  # noqa: BLE001 - a crash on valid data is what this counts
            out["crashes"] += 1
            continue
        out["wrong"] += wrong(limit, verdict)
        out["laws_wrong"] += wrong(limit, laws_verdict(row))
        out["verdicts"][verdict] = out["verdicts"].get(verdict, 0) + 1
        if row["limit_status"] == "identified":
            out["identified"][0] += 1
            out["identified"][1] += covers(row["delta_inf_low"], row["delta_inf_high"], limit)
        if math.isfinite(row["delta50_d_max"]):
            out["at_d_max"][0] += 1
            out["at_d_max"][1] += covers(row["delta50_d_max_low"], row["delta50_d_max_high"], at_max)
    return out


def _share(pair):
    return f"{pair[1]}/{pair[0]}" if pair[0] else "—"


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--designs", nargs="+", default=["docs", "sparse", "default"], choices=list(DESIGNS))
    parser.add_argument("--classes", nargs="+", default=list(CLASSES), choices=list(CLASSES))
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    print(
        "class   design   replicates crashes wrong  (laws' interval deciding)  "
        "identified by the laws, covering δ∞  δ₅₀(d_max) interval covers  verdicts"
    )
    for truth_class, design in itertools.product(args.classes, args.designs):
        t = table(truth_class, design, args.replicates, args.seed)
        print(
            f"{truth_class:<7} {design:<8} {t['replicates']:<10} {t['crashes']:<7} {t['wrong']:<6} "
            f"{t['laws_wrong']:<26} {_share(t['identified']):<37} {_share(t['at_d_max']):<27} "
            f"{t['verdicts']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
