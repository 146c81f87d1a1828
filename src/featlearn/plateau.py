"""The restricted GD plateau and its Hessian spectrum (the mechanism behind the escape).

For one (activation, d, δ, seed): restricted GD (hard component projected out of Θ(0) and of
every gradient, ``gd.run(restrict=U)``) is run until ‖∇R̂‖ ≤ grad_tol or the step budget ends.
At the checkpoint steps of a log grid and at the final state the bottom of the Hessian spectrum is
recorded (``hessian.spectrum``: k smallest eigenvalues, their hard overlaps², the bulk edge, the
hard block minimum H₁₁); at the final state also the whole bulk spectrum (for histograms).
"""

import time

import numpy as np

from . import gd, hessian, outlier, sweep
from .links import get_link


def hard_directions(theta_star, link):
    """U: the columns of Θ* that are hard for ``link`` (orthonormal)."""
    return theta_star[:, list(get_link(link).hard)]


def semi_empirical_outlier(x, y, theta, a, b, activation, hard):
    """The outlier equations (``outlier``) fed with the state's own empirical law of (g², w).

    A check of the outlier theory against the measured spectrum, not a prediction (outlier.md §4,
    item 3).  Single neuron and a single hard direction only; NaN otherwise.
    """
    if theta.shape[0] != 1 or hard.shape[1] != 1:
        return outlier.OutlierResult(np.nan, np.nan, np.nan, False)
    g2, w = outlier.empirical_weights(x, y, theta, a, b, activation, hard[:, 0])
    return outlier.OutlierSolver(g2, w, (x.shape[1] - 1) / x.shape[0]).solve()


def plateau_run(settings, d, delta, seed_index, checkpoints, grad_tol, k, log=print):
    """Restricted GD to the plateau with spectra along the way; a dict of arrays for one seed."""
    data, theta0, a, b = sweep.trial_setup(settings, d, delta, seed_index)
    u = hard_directions(data["theta_star"], settings["link"])
    act = settings["activation"]
    x64 = np.asarray(data["X"], dtype=np.float64)
    steps = settings["steps"]
    grid = gd.log_grid(steps, checkpoints)
    slot = {int(t): i for i, t in enumerate(grid)}
    rec = {  # NaN where the run ended before a checkpoint
        "eigenvalues": np.full((grid.size, k), np.nan),
        "overlap2": np.full((grid.size, k), np.nan),
        "bulk_edge": np.full(grid.size, np.nan),
        "hard_block": np.full(grid.size, np.nan),
    }
    start = time.perf_counter()

    def checkpoint(t, theta):
        spec = hessian.spectrum(x64, data["y"], theta, a, b, act, u, k=k)
        i = slot[t]
        rec["eigenvalues"][i], rec["overlap2"][i] = spec.eigenvalues, spec.hard_overlap2
        rec["bulk_edge"][i], rec["hard_block"][i] = spec.bulk_edge, spec.hard_block_min

    traj = gd.run(
        data,
        theta0,
        a,
        b,
        act,
        settings["lr"],
        steps,
        grid,
        restrict=u,
        grad_tol=grad_tol,
        checkpoint=checkpoint,
    )
    final = hessian.spectrum(x64, data["y"], traj.theta, a, b, act, u, k=k)
    predicted = semi_empirical_outlier(x64, data["y"], traj.theta, a, b, act, u)
    bulk = hessian.bulk_eigenvalues(x64, data["y"], traj.theta, a, b, act, u)
    log(
        f"seed {seed_index}: steps={traj.final_step} converged={traj.converged} "
        f"lambda_min={final.eigenvalues[0]:.4f} overlap2={final.hard_overlap2[0]:.3f} "
        f"bulk_edge={final.bulk_edge:.4f} ({time.perf_counter() - start:.1f}s)"
    )
    return {
        "checkpoint_steps": grid,
        **{f"checkpoint_{key}": value for key, value in rec.items()},
        "train_loss": traj.train_loss,
        "norm": traj.norm,
        "final_step": traj.final_step,
        "converged": traj.converged,
        "diverged": traj.diverged,
        "final_train_loss": traj.final_train_loss,
        "final_test_loss": traj.final_test_loss,
        "final_norm": float(np.linalg.norm(traj.theta)),
        "eigenvalues": final.eigenvalues,
        "overlap2": final.hard_overlap2,
        "bulk_edge": final.bulk_edge,
        "hard_block": final.hard_block_min,
        "bulk": bulk,
        "predicted_outlier": predicted.outlier,
        "predicted_overlap2": predicted.overlap2,
        "predicted_bulk_edge": predicted.bulk_edge,
    }


def plateau_cell(settings, d, delta, seeds, checkpoints, grad_tol, k, log=print):
    """All seeds of one (activation, d, δ) cell, stacked (leading axis = seed)."""
    runs = [plateau_run(settings, d, delta, s, checkpoints, grad_tol, k, log) for s in range(seeds)]
    out = {"d": d, "delta": delta}
    for key in runs[0]:
        out[key] = np.array([r[key] for r in runs])
    return out
