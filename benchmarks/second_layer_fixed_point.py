"""Does the static fixed point describe GD that trains its second layer?  (docs/dmft.md, "A trainable
second layer").

Restricted GD (hard coordinate projected out, ``featlearn.gd.engine.run`` with ``restrict`` and
``train``) runs to ‖∇‖ ≤ 1e-7 on ``--seeds`` datasets at dimension ``--d`` (identities
("second-layer-fp", link, d, δ, seed)).  For each converged run the replica-symmetric fixed point of
docs/outlier.md, (O10)–(O12), is solved at the run's own (a, b) (``FixedPointSolver``) and the script
prints ‖θ‖² and the train loss of both, the AT value, and the stationarity residuals of the trained
layers at the fixed point,

    E[ψ(e) σ(z + b)]  (a trained),   E[ℓ′(y, z)]  (b trained),   e = aσ(z + b) − y,

for several quadrature sizes (``--nodes``): a residual that changes sign with the quadrature cannot
locate the stationary (a, b).  Then it scans a (``--scan``) along the fixed point's branch, warm
started from the run's a, with the train loss, the AT value and the residual.

Usage: python benchmarks/second_layer_fixed_point.py [--activation gelu] [--link bump] [--delta 12]
       [--lr 1] [--train theta,a] [--d 1000] [--seeds 2] [--nodes 40,80,120,160]
       [--scan 0.3,0.28,0.26,0.24]
"""

import argparse
import time

import numpy as np

from featlearn.gd import engine as gd
from featlearn.model import data as data_mod
from featlearn.model import seeds
from featlearn.model.activations import evaluate
from featlearn.model.links import get_link
from featlearn.model.loss import loss_derivatives
from featlearn.theory.fixed_point import FixedPointSolver


def converged_run(args, seed):
    """(‖θ‖², train loss, a, b, steps, converged) of one restricted GD run to ‖∇‖ ≤ 1e-7."""
    gens = seeds.trial_generators("second-layer-fp", args.link, args.d, args.delta, seed)
    data = data_mod.trial_data(gens, int(round(args.delta * args.d)), args.d, 10, args.link)
    hard = data["theta_star"][:, list(get_link(args.link).hard)]
    theta0 = gens["init"].standard_normal((1, args.d)) / np.sqrt(args.d)
    net = gd.Network(args.activation, theta0, np.ones(1), np.zeros(1))
    schedule = gd.Schedule(
        lr=args.lr,
        steps=args.steps,
        grid=gd.log_grid(args.steps, 10),
        restrict=hard,
        train=args.train,
        grad_tol=1e-7,
    )
    traj = gd.run(data, net, schedule)
    q = float(np.sum(traj.theta**2))
    a, b = float(traj.final_a[0]), float(traj.final_b[0])
    return q, traj.final_train_loss, a, b, traj.final_step, traj.converged


def residuals(solver, fp):
    """The trained layers' stationarity residuals at the fixed point ``fp`` (module docstring)."""
    z, _, _ = solver.law(fp.kappa, fp.q)
    s, _, _ = evaluate(solver.activation, z + solver.b)
    _, r, _ = loss_derivatives(solver.activation, solver.a, solver.b, solver.y, z)
    weights = solver.weights
    return float(weights @ ((solver.a * s - solver.y) * s)), float(weights @ r)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--activation", default="gelu")
    parser.add_argument("--link", default="bump")
    parser.add_argument("--delta", type=float, default=12.0)
    parser.add_argument("--lr", type=float, default=1.0)
    parser.add_argument("--train", default="theta,a")
    parser.add_argument("--d", type=int, default=1000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--steps", type=int, default=60_000)
    parser.add_argument("--nodes", default="40,80,120,160")
    parser.add_argument("--scan", default="0.3,0.28,0.26,0.24")
    args = parser.parse_args()
    args.train = tuple(args.train.split(","))
    nodes = [int(v) for v in args.nodes.split(",")]
    print(
        f"{args.activation} on {args.link}, delta = {args.delta}, eta = {args.lr}, train = {args.train}, "
        f"d = {args.d}"
    )
    runs = []
    for seed in range(args.seeds):
        start = time.perf_counter()
        q, loss, a, b, steps, converged = converged_run(args, seed)
        runs.append((a, b))
        print(
            f"GD seed {seed}: {steps} steps (converged {converged}), |theta|^2 = {q:.4f}, loss = {loss:.5f}, "
            f"a = {a:.4f}, b = {b:.4f} ({time.perf_counter() - start:.0f} s)"
        )
        for count in nodes:
            solver = FixedPointSolver(args.activation, args.link, a, b, count)
            fp = solver.solve(args.delta)
            res_a, res_b = residuals(solver, fp)
            print(
                f"   fixed point at that (a, b), {count:>3} nodes: q = {fp.q:.4f}, "
                f"loss = {fp.train_loss:.5f}, AT = {fp.at_value:.3f}, "
                f"E[psi sigma] = {res_a:+.6f}, E[l'] = {res_b:+.6f}"
            )
    a0, b0 = runs[0]
    solver = FixedPointSolver(args.activation, args.link, a0, b0, nodes[len(nodes) // 2])
    previous = solver.solve(args.delta)
    print(f"scan of a along the branch from seed 0's a = {a0:.4f} ({nodes[len(nodes) // 2]} nodes):")
    for a in (float(v) for v in args.scan.split(",")):
        solver = FixedPointSolver(args.activation, args.link, a, b0, nodes[len(nodes) // 2])
        previous = solver.solve(args.delta, (previous.kappa, previous.q))
        res_a, res_b = residuals(solver, previous)
        print(
            f"   a = {a:.4f}: q = {previous.q:.4f}, loss = {previous.train_loss:.6f}, "
            f"AT = {previous.at_value:.3f}, E[psi sigma] = {res_a:+.6f}, E[l'] = {res_b:+.6f}"
        )


if __name__ == "__main__":
    main()
