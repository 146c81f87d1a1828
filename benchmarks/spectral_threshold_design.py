"""Sizing the spectral-threshold scan (config ``spectral_threshold``): how many seeds per δ, on which
grid, the aligned crossing (F14) needs for a 95 % profile interval within ±``target`` at one d.

Truth: P(aligned | δ) = logistic((δ − δ_spec)/s).  For each design (m δ spaced ``step`` apart and
centred ``offset`` away from δ_spec, ``seeds`` per δ) it prints

- the Wald half-width z·√[I⁻¹]_δδ from the Fisher information of (F14) at the truth,
  I = Σ_j S p_j(1 − p_j) g_j g_jᵀ, g_j = (−b, δ_j − δ_spec), b = 1/s;
- from ``replicates`` seeded data sets through ``aligned_crossing``: the median of the larger side of
  the profile interval, P(both sides ≤ target), P(closed) and the coverage;
- the cost in seed·δ units, Σ_j δ_j · seeds (the plan's restricted-GD bound at one d is proportional).

    python benchmarks/spectral_threshold_design.py --centre 9.95 --scale 0.67 --offset 0.25
"""

import argparse
import itertools
import math

import numpy as np
from scipy import stats

from featlearn.analysis.spectral_threshold import aligned_crossing


def wald_half_width(grid, seeds, centre, scale, level=0.95):
    """z·√[I⁻¹]_δδ of (F14) at the truth (centre, scale) on ``grid`` with ``seeds`` per δ."""
    b = 1 / scale
    p = 1 / (1 + np.exp(-b * (grid - centre)))
    g = np.column_stack([np.full(grid.size, -b), grid - centre])
    info = (g * (seeds * p * (1 - p))[:, None]).T @ g
    return stats.norm.ppf(0.5 + level / 2) * math.sqrt(np.linalg.inv(info)[0, 0])


def simulate(grid, seeds, centre, scale, target, replicates, rng):
    """(median larger side, P(both sides ≤ target), P(closed), coverage) over seeded replicates."""
    delta = np.repeat(grid, seeds)
    p = 1 / (1 + np.exp(-(delta - centre) / scale))
    sides, within, closed, covered = [], 0, 0, 0
    for _ in range(replicates):
        out = aligned_crossing(delta, rng.random(delta.size) < p)
        if math.isfinite(out["low"]) and math.isfinite(out["high"]):
            side = max(out["high"] - out["estimate"], out["estimate"] - out["low"])
            closed += 1
            within += side <= target
            covered += out["low"] <= centre <= out["high"]
        else:
            side = math.inf
        sides.append(side)
    return float(np.median(sides)), within / replicates, closed / replicates, covered / replicates


def main(argv=None):
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--centre", type=float, required=True, help="true δ_spec")
    parser.add_argument("--scale", type=float, required=True, help="logistic width s of the aligned share")
    parser.add_argument("--offset", type=float, default=0.25, help="grid centre minus δ_spec")
    parser.add_argument("--target", type=float, default=0.3)
    parser.add_argument("--points", type=int, nargs="+", default=[4, 5, 6])
    parser.add_argument("--steps", type=float, nargs="+", default=[0.25, 0.4, 0.5, 0.75])
    parser.add_argument("--seeds", type=int, nargs="+", default=[10, 16, 20, 24, 30, 40])
    parser.add_argument("--replicates", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("m  step  seeds  points  cost   wald±  median±  P(≤target)  P(closed)  coverage")
    for m, step, seeds in itertools.product(args.points, args.steps, args.seeds):
        grid = args.centre + args.offset + step * (np.arange(m) - (m - 1) / 2)
        wald = wald_half_width(grid, seeds, args.centre, args.scale)
        median, within, closed, covered = simulate(
            grid, seeds, args.centre, args.scale, args.target, args.replicates, rng
        )
        print(
            f"{m}  {step:<4g}  {seeds:<5d}  {m * seeds:<6d}  {seeds * grid.sum():<5.0f}  {wald:.3f}  "
            f"{median:.3f}    {within:.2f}        {closed:.2f}       {covered:.2f}"
        )


if __name__ == "__main__":
    main()
