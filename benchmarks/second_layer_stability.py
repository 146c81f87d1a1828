"""Does GD with a trained second layer converge?  One sweep trial run at several learning rates, with
the Hessian's extreme eigenvalues at its end (docs/design.md, "A trained second layer").

GD with step η is stable at a point only where the Hessian's largest eigenvalue λ_max < 2/η.  With
a and b trained the curvature along the layers grows as GD runs (progressive sharpening), so a run
may reach λ_max ≈ 2/η and settle into a period-2 cycle instead of a minimum (the edge of stability):
its gradient stays O(1), the train loss alternates between two values, and the minimum certificate
(docs/model.md, (M13)/(M14)) never fires, so the trial ends at its step budget uncertified
(censored).  For each η the script reruns the trial of sweep ``--sweep`` at (``--d``, ``--delta``,
``--trial``), regenerated from its identity as the sweep draws it (``gd.trials.trial_setup``), for
``--steps`` steps (× 1/η relative to η = 1, so every run covers the same GD time ηt), with no
freezing and no certificate, and prints

* the train loss at the last four steps (a 2-cycle alternates: L_T = L_{T−2} ≠ L_{T−1}),
* ‖∇R̂‖ at the end, ρ, a and b,
* λ_min and λ_max of the Hessian in every trained parameter (Lanczos) against 2/η.

Usage: python benchmarks/second_layer_stability.py --configfile config.yaml workflow/configs/design.yaml
       <overlay with the sweep> --sweep design_gelu_a --d 500 --delta 5.24 --trial 1 --lr 1 0.5 [--steps 4000]
"""

import argparse
import time

import numpy as np
from scipy.sparse.linalg import eigsh

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.model import hessian_spectrum as hessian
from featlearn.pipeline import settings as typed
from featlearn.plan import load_config


def run(settings, d, delta, trial, lr, steps):
    """The trial at step ``lr`` for ``steps`` steps: (trajectory, its data and network at the start)."""
    data, net = trials.trial_setup(settings, d, delta, trial)
    base = trials.schedule(settings, data, net)
    grid = np.unique(np.concatenate([gd.log_grid(steps, 10), np.arange(steps - 3, steps + 1)]))
    schedule = gd.Schedule(
        lr=lr, steps=steps, grid=grid, loss_scale=base.loss_scale, train=base.train, loss=base.loss
    )
    return gd.run(data, net, schedule), data, net, schedule


def extreme_eigenvalues(traj, data, net, train):
    """(λ_min, λ_max) of the Hessian of R̂ in the trained parameters at the trajectory's end."""
    x, y, theta, a, b = data["X"], data["y"], traj.theta, traj.final_a, traj.final_b
    low, _ = hessian.bottom_eigenpair(x, y, theta, a, b, net.activation, train=train)
    operator = hessian.hessian_operator(x, y, theta, a, b, net.activation, train=train)
    return low, float(eigsh(operator, k=1, which="LA", tol=1e-6)[0][0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", nargs="+", required=True)
    parser.add_argument("--sweep", required=True)
    parser.add_argument("--d", type=int, required=True)
    parser.add_argument("--delta", type=float, required=True)
    parser.add_argument("--trial", type=int, default=0)
    parser.add_argument("--lr", type=float, nargs="+", default=[1.0, 0.5])
    parser.add_argument("--steps", type=int, default=4000, help="steps at eta = 1 (scaled by 1/eta)")
    args = parser.parse_args()
    settings = typed.sweep_settings(load_config(args.configfile), args.sweep, block=0, d=args.d)
    print(f"{args.sweep} d={args.d} delta={args.delta} trial {args.trial}, train {settings.train}")
    for lr in args.lr:
        start, steps = time.perf_counter(), int(round(args.steps / lr))
        traj, data, net, schedule = run(settings, args.d, args.delta, args.trial, lr, steps)
        low, high = extreme_eigenvalues(traj, data, net, schedule.train)
        last = ", ".join(f"{v:.8f}" for v in traj.train_loss[-4:])
        print(
            f"eta={lr}: {steps} steps, last losses [{last}], |grad|={traj.grad_norm[-1]:.2e}, "
            f"rho={traj.final_rho:.3f}, a={traj.final_a[0]:.3f}, b={traj.final_b[0]:.3f}; "
            f"lambda_min={low:.4f}, lambda_max={high:.4f} vs 2/eta={2 / lr:.3f} "
            f"({time.perf_counter() - start:.0f}s)"
        )


if __name__ == "__main__":
    main()
