"""The DMFT with a trained second layer (docs/dmft.md, eq. (D13)) against restricted GD at d = 1000.

Restricted GD (hard coordinate projected out, ``featlearn.gd.engine.run`` with ``restrict`` and
``train = ("theta", "a", "b")``) from θ⁰ ~ N(0, I/d), a⁰ = 1, b⁰ = ``--b0``, on ``--seeds`` datasets
(identities ("second-layer", link, d, δ, seed)), against the DMFT solved on ``--replicas`` independent
path sets of ``--paths`` paths (identities ("second-layer", link, δ, N, r)).  For ‖θ^t‖², the train
loss, a^t and b^t at a few t it prints both means, their standard errors, the difference and z =
difference / combined error √(se_DMFT² + se_GD²) (docs/dmft.md, "Error bars: path replicas"), and
the same for the fixed-layer run as a reference.

Usage: python benchmarks/second_layer_dmft.py [--activation gelu] [--link he2] [--delta 8] [--lr 1]
       [--d 1000] [--steps 30] [--seeds 8] [--paths 10000] [--replicas 4] [--b0 0.3]
"""

import argparse
import time

import numpy as np
from second_layer_common import add_model_arguments, restricted_run

from featlearn.theory import dmft

TRAIN = ("theta", "a", "b")
QUANTITIES = ("norm2", "train_loss", "a", "b")


def paths(args, seed, train):
    """One restricted GD run; (‖θ^t‖², train loss, a^t, b^t) for t = 0..steps, shape (4, steps + 1)."""
    _, _, traj = restricted_run(args, args.d, seed, train, np.arange(args.steps + 1))
    return np.array([traj.norm**2, traj.train_loss, traj.a_path[:, 0], traj.b_path[:, 0]])


def dmft_run(args, replica, train):
    res = dmft.solve(
        args.activation,
        args.link,
        args.delta,
        args.lr,
        args.steps,
        args.paths,
        ("second-layer", args.link, args.delta, args.paths, replica),
        b=args.b0,
        train=train,
    )
    return np.array([res.norm2, res.train_loss, res.a, res.b])


def summary(values):
    return values.mean(axis=0), values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])


def compare(args, train):
    start = time.perf_counter()
    sim = np.array([paths(args, s, train) for s in range(args.seeds)])
    mid = time.perf_counter()
    theory = np.array([dmft_run(args, r, train) for r in range(args.replicas)])
    end = time.perf_counter()
    print(
        f"\ntrain = {train}: {args.seeds} GD runs at d = {args.d} ({mid - start:.0f} s), "
        f"{args.replicas} DMFT replicas of N = {args.paths} ({end - mid:.0f} s)"
    )
    (gd_mean, gd_se), (th_mean, th_se) = summary(sim), summary(theory)
    print(f"{'quantity':>10} {'t':>4} {'DMFT':>18} {'GD':>18} {'diff':>9} {'z':>6}")
    worst = 0.0
    for q, name in enumerate(QUANTITIES):
        for t in sorted({1, args.steps // 3, 2 * args.steps // 3, args.steps}):
            err = np.hypot(th_se[q, t], gd_se[q, t])
            diff = th_mean[q, t] - gd_mean[q, t]
            z = diff / err if err > 0 else np.nan
            if np.isfinite(z):
                worst = max(worst, abs(z))
            print(
                f"{name:>10} {t:>4} {th_mean[q, t]:>9.4f} ± {th_se[q, t]:<6.4f} "
                f"{gd_mean[q, t]:>9.4f} ± {gd_se[q, t]:<6.4f} {diff:>9.4f} {z:>6.2f}"
            )
    print(f"largest |z| = {worst:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(parser, seeds_default=8)
    parser.add_argument("--d", type=int, default=1000)
    parser.add_argument("--paths", type=int, default=10_000)
    parser.add_argument("--replicas", type=int, default=4)
    args = parser.parse_args()
    print(
        f"{args.activation} on {args.link}, delta = {args.delta}, eta = {args.lr}, a0 = 1, b0 = {args.b0}, "
        f"T = {args.steps}"
    )
    for train in (TRAIN, ("theta",)):
        compare(args, train)


if __name__ == "__main__":
    main()
