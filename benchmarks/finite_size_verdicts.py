"""The limit verdict and claim 14 on truths inside and outside the limit laws' family, on the product's
path: ``finite_size_analysis`` (δ∞'s verdict, (F9)) → ``claims.claim_limit`` (docs/finite_size.md).

Designs: "docs", d = 250, 500, 1000, 2000, 4000 (the docs' cells), and "wide", d = 100 … 102 400 in
eleven doublings (three decades, the coverage test's).  Five cells per d at δ₅₀(d) + w(d)·{0, ±0.75,
±1.5} shifted by a uniform draw of ±½ w(d) (a pilot's placement, not the truth's crossing),
w(d) = 0.8 (d/250)^(−0.35) (GeLU's measured widths), T trials per cell.  Truths of δ₅₀(d), GeLU-like
(about 6 at d = 250, rising about 0.28 per doubling there), against δ_NN(∞) = 9.52 with the claim's
tolerance 0.5:

- log: 9.48 − 29.1 / ln(d/0.0514), a limit law (F4e) with δ∞ = 9.48 (claim 14 true);
- power: 9.48 − 3.43 (d/250)^(−0.118), a limit law (F4d) with δ∞ = 9.48 (claim 14 true);
- fast: 9.48 − 3 (d/100)^(−0.4), a power law that has nearly reached δ∞ = 9.48 by d = 10⁴ (claim 14
  true; the control that "identified" and "reproduced" are reachable);
- lnln: 6 + ln(1 + log₂(d/100)), growth without a limit outside the limit laws (claim 14 false);
- growth: 6.05 + 0.28 log₂(d/250), pure ln d growth (claim 14 false).

Per truth and T: P(identified); the coverage of the identified intervals (NaN without one); how often
the reported set (the interval, or the one-sided bound, an open side unbounded) excludes the truth (δ∞
or +∞); and P(claim 14 wrong): "not reproduced" on a true claim, "reproduced" on a false one.

    python benchmarks/finite_size_verdicts.py [--replicates 100] [--designs docs wide] [--trials 10 30]
"""

import argparse
import itertools
import math

import numpy as np

from featlearn.analysis import claims
from featlearn.analysis.finite_size import finite_size_analysis

DESIGNS = {"docs": (250, 500, 1000, 2000, 4000), "wide": tuple(100 * 2**k for k in range(11))}
OFFSETS = np.array([-1.5, -0.75, 0.0, 0.75, 1.5])
DELTA_NN = 9.52
TOLERANCE = {"finite_size": 0.5}

TRUTHS = {
    "log": (lambda d: 9.48 - 29.1 / np.log(d / 0.0514), 9.48),
    "power": (lambda d: 9.48 - 3.43 * (d / 250) ** -0.118, 9.48),
    "fast": (lambda d: 9.48 - 3.0 * (d / 100) ** -0.4, 9.48),
    "lnln": (lambda d: 6.0 + np.log1p(np.log2(d / 100)), math.inf),
    "growth": (lambda d: 6.05 + 0.28 * np.log2(d / 250), math.inf),
}
"""name → (δ₅₀(d), δ∞; ∞ where there is no limit)."""


def width(d):
    return 0.8 * (d / 250) ** -0.35


def cells(centre, design, trials, rng):
    """Rows (d, delta, successes, trials) of ``design`` under δ₅₀(d) = ``centre(d)``."""
    rows = []
    for d in DESIGNS[design]:
        w = width(d)
        delta = np.round(centre(d) + w * (OFFSETS + rng.uniform(-0.5, 0.5)), 3)
        p = 1 / (1 + np.exp(-(delta - centre(d)) / w))
        for x, k in zip(delta, rng.binomial(trials, p), strict=True):
            rows.append({"d": d, "delta": float(x), "successes": int(k), "trials": trials})
    return rows


def replicate(truth, design, trials, rng):
    """One data set of ``truth`` through the product's path: (summary row, claim-14 verdict)."""
    data = cells(TRUTHS[truth][0], design, trials, rng)
    summary = finite_size_analysis(data, truth, n_boot=0, diagnostics=False)["summary"][0]
    row = summary | {"delta_nn_long_time": DELTA_NN}
    results = claims.Results(
        read=lambda name: [row] if name == "finite_size_summary.csv" else [], grokking=None
    )
    return row, claims.claim_limit(results, TOLERANCE)["verdict"]


def wrong(truth, verdict):
    """Claim 14 ("the limit is δ_NN(∞)") is true for a limit within the tolerance of δ_NN(∞)."""
    limit = TRUTHS[truth][1]
    true = math.isfinite(limit) and abs(limit - DELTA_NN) <= TOLERANCE["finite_size"]
    return verdict == (claims.NOT_REPRODUCED if true else claims.REPRODUCED)


def excludes(row, limit):
    """The reported set (identified interval, or one-sided bound; NaN sides open) misses ``limit``."""
    low = row["delta_inf_low"] if math.isfinite(row["delta_inf_low"]) else -math.inf
    high = row["delta_inf_high"] if math.isfinite(row["delta_inf_high"]) else math.inf
    return not low <= limit <= high


def table(truth, design, trials, replicates, seed):
    """{identified, coverage, excluded, wrong, verdicts} over seeded replicates of one truth."""
    rng = np.random.default_rng([seed, list(TRUTHS).index(truth), list(DESIGNS).index(design), trials])
    limit = TRUTHS[truth][1]
    rows = [replicate(truth, design, trials, rng) for _ in range(replicates)]
    identified = [row for row, _ in rows if row["limit_status"] == "identified"]
    covered = [not excludes(row, limit) for row in identified]
    verdicts = [v for _, v in rows]
    return {
        "identified": len(identified) / replicates,
        "coverage": float(np.mean(covered)) if covered else math.nan,
        "excluded": float(np.mean([excludes(row, limit) for row, _ in rows])),
        "wrong": float(np.mean([wrong(truth, v) for v in verdicts])),
        "verdicts": {v: verdicts.count(v) for v in dict.fromkeys(verdicts)},
    }


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--replicates", type=int, default=100)
    parser.add_argument("--designs", nargs="+", default=list(DESIGNS))
    parser.add_argument("--truths", nargs="+", default=list(TRUTHS))
    parser.add_argument("--trials", type=int, nargs="+", default=[10, 30])
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    print("design truth   T   P(identified)  coverage  P(set excludes truth)  P(claim 14 wrong)  verdicts")
    for design, truth, trials in itertools.product(args.designs, args.truths, args.trials):
        t = table(truth, design, trials, args.replicates, args.seed)
        print(
            f"{design:<6} {truth:<7} {trials:<3} {t['identified']:<14.2f} {t['coverage']:<9.2f} "
            f"{t['excluded']:<22.2f} {t['wrong']:<18.2f} {t['verdicts']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
