"""Does a trained second layer change the hard-direction outlier?  The Hessian in (θ, a, b) (docs/model.md,
eq. (M7a)) at restricted GD's point, against the Hessian in θ alone (docs/dmft.md, "The outlier with a
trained layer").

Restricted GD (hard coordinate projected out, ``train = ("theta", "a", "b")``) runs ``--steps`` steps
from θ⁰ ~ N(0, I/d), a⁰ = 1, b⁰ = ``--b0`` on ``--seeds`` datasets per d (identities ("second-layer",
link, d, δ, seed), benchmarks/second_layer_common.py).  At its end point, with u = θ* the hard
direction, it prints per d the mean ± s.e. over seeds of

* H_uu = uᵀ∇²_θθ R̂ u, the hard diagonal entry;
* κ = ‖∇²_{(a,b),θ} R̂ · u‖, the coupling of the hard direction to the trained layers, and √n·κ: the
  reflection x ↦ (I − 2uuᵀ)x leaves restricted GD's (θ, a, b) and every y unchanged and flips g = uᵀx,
  while κ's summands are odd in g, so E κ = 0 and κ = O(n^{-1/2}) (√n·κ flat in d);
* n·c_uᵀH_ab⁻¹c_u, with c_u that coupling column and H_ab the 2×2 block of (a, b): the Schur
  complement H_uu − c_uᵀH_ab⁻¹c_u is the hard entry with the trained layers eliminated (the 3×3
  determinant of the hard direction and the layers vanishes exactly where it does), so the layers
  shift the hard entry by O(1/n) (n times the shift flat in d);
* λ_min of the Hessian in θ and of the Hessian in (θ, a, b), and the hard overlap² of their bottom
  eigenvectors: if the coupling vanishes, the outlier (a negative eigenvalue whose eigenvector lies
  along u) is the same in both, and the outlier condition with a trained layer is the fixed-layer
  condition at the trained (a, b).

With ``--grid`` it then computes δ_NN(t) from the DMFT (``--replicas`` path sets of ``--paths``) with
the layers fixed and trained: the outlier condition of the fixed layer applied to the DMFT law of
(g², w^t), whose weights w^t = ℓ″ are taken at the trained (a^t, b^t) ((D13)), margin interpolated
to its first zero on the δ grid, per replica; mean ± s.e. at a few t and of min_t δ_NN(t).

Usage: python benchmarks/second_layer_outlier.py [--activation gelu] [--link he2] [--delta 8] [--lr 1]
       [--d 250 1000 2000] [--steps 30] [--seeds 4] [--b0 0.3]
       [--grid 3 4 5 6 7 8 9 10 12] [--paths 10000] [--replicas 2]
"""

import argparse
import time

import numpy as np
from second_layer_common import add_model_arguments, restricted_run

from featlearn.model import hessian_spectrum as hessian
from featlearn.model import network
from featlearn.theory import dmft
from featlearn.theory.crossing import first_crossing
from featlearn.theory.delta_nn import outlier_track

TRAIN = ("theta", "a", "b")


def measure(args, d, seed):
    data, hard, traj = restricted_run(args, d, seed, TRAIN, np.array([args.steps]))
    u, theta, a, b = hard[:, 0], traj.theta, traj.final_a, traj.final_b
    x, y = data["X"], data["y"]
    product = network.joint_hessian_at(x, y, theta, a, b, args.activation, TRAIN)
    column = product(np.concatenate([u, np.zeros(2)]))
    coupling = float(np.linalg.norm(column[d:]))
    layers = np.column_stack([product(np.concatenate([np.zeros(d), e]))[d:] for e in np.eye(2)])
    schur = float(column[d:] @ np.linalg.solve(layers, column[d:]))
    lam_theta, v_theta = hessian.bottom_eigenpair(x, y, theta, a, b, args.activation)
    lam_joint, v_joint = hessian.bottom_eigenpair(x, y, theta, a, b, args.activation, train=TRAIN)
    return {
        "H_uu": float(column[:d] @ u),
        "kappa": coupling,
        "sqrt_n_kappa": coupling * np.sqrt(x.shape[0]),
        "n_schur": schur * x.shape[0],
        "lam_theta": lam_theta,
        "lam_joint": lam_joint,
        "lam_diff": lam_joint - lam_theta,
        "overlap_theta": float((v_theta @ u) ** 2),
        "overlap_joint": float((v_joint[:d] @ u) ** 2),
        "a": float(a[0]),
        "b": float(b[0]),
    }


def delta_nn_by_time(args, train, replica):
    """δ_NN(t) for t = 1..steps from one path set per δ of ``args.grid`` (NaN where the margin never
    turns negative on the grid; the smallest δ where it already is there)."""
    times = np.arange(1, args.steps + 1)
    margins = []
    for delta in args.grid:
        seed = ("second-layer-outlier", args.link, delta, args.paths, replica)
        res = dmft.solve(
            args.activation, args.link, delta, args.lr, args.steps, args.paths, seed, b=args.b0, train=train
        )
        margins.append(outlier_track(res, times)["margin"])
    margins = np.array(margins)
    return np.array([first_crossing(args.grid, margins[:, i])[0] for i in range(times.size)])


def compare_delta_nn(args):
    print(f"\ndelta_NN(t) from the DMFT, N = {args.paths}, {args.replicas} replicas, grid {args.grid}")
    for train in (("theta",), TRAIN):
        start = time.perf_counter()
        tracks = np.array([delta_nn_by_time(args, train, r) for r in range(args.replicas)])
        found = np.isfinite(tracks).any(axis=1)  # a replica without an outlier on the grid: NaN
        minima = np.where(found, np.nanmin(np.where(np.isfinite(tracks), tracks, np.inf), axis=1), np.nan)
        at = np.where(found, np.argmin(np.where(np.isfinite(tracks), tracks, np.inf), axis=1) + 1, 0)
        kept = minima[found]
        se = kept.std(ddof=1) / np.sqrt(kept.size) if kept.size > 1 else np.nan
        shown = {t: tracks[:, t - 1] for t in sorted({1, 5, 10, 20, args.steps})}
        text = ", ".join(
            f"t={t}: {np.nanmean(v) if np.isfinite(v).any() else np.nan:.3f}" for t, v in shown.items()
        )
        print(f"  train = {train} ({time.perf_counter() - start:.0f} s): {text}")
        each = ", ".join(f"{m:.3f} at t = {t}" for m, t in zip(minima, at, strict=True))
        mean = kept.mean() if kept.size else np.nan
        print(f"    min_t delta_NN(t) = {mean:.3f} +- {se:.3f}  ({each}; NaN: none on the grid)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_model_arguments(parser, seeds_default=4)
    parser.add_argument("--d", type=int, nargs="*", default=[250, 1000, 2000])
    parser.add_argument("--grid", type=float, nargs="*", default=[])
    parser.add_argument("--paths", type=int, default=10_000)
    parser.add_argument("--replicas", type=int, default=2)
    args = parser.parse_args()
    print(f"{args.activation}, y = {args.link}, delta = {args.delta}, t = {args.steps}, train = {TRAIN}")
    for d in args.d:
        start = time.perf_counter()
        rows = [measure(args, d, seed) for seed in range(args.seeds)]
        print(f"\nd = {d} ({args.seeds} seeds, {time.perf_counter() - start:.0f} s)")
        for key in rows[0]:
            values = np.array([row[key] for row in rows])
            se = values.std(ddof=1) / np.sqrt(values.size)
            print(
                f"  {key:>14} {values.mean():+.5f} +- {se:.5f}   ({', '.join(f'{v:+.4f}' for v in values)})"
            )
    if args.grid:
        compare_delta_nn(args)


if __name__ == "__main__":
    main()
