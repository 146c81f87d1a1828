"""The restricted GD plateau and its Hessian spectrum (the mechanism behind the escape).

For one (activation, d, δ, seed): restricted GD (hard component projected out of Θ(0) and of
every gradient, ``gd.run(restrict=U)``) is run until ‖∇R̂‖ ≤ grad_tol or the step budget ends.
At the checkpoint steps of a log grid and at the final state the bottom of the Hessian spectrum is
recorded (``hessian.spectrum``: k smallest eigenvalues, their hard overlaps², the bulk edge, the
hard block minimum H₁₁); at the final state also the whole bulk spectrum (for histograms).
"""

import time
from dataclasses import dataclass

import numpy as np

from . import gd, hessian, outlier, sweep
from .links import get_link


def hard_directions(theta_star, link):
    """U: the columns of Θ* that are hard for ``link`` (orthonormal)."""
    return theta_star[:, list(get_link(link).hard)]


@dataclass
class RestrictedProblem:
    """One seed of restricted GD: its data regenerated from the trial identity
    (``sweep.trial_setup``), the hard directions U and X in float64 for the spectra."""

    settings: dict
    data: dict
    theta0: np.ndarray
    a: np.ndarray
    b: np.ndarray
    hard: np.ndarray  # U ∈ R^{d×h}
    x64: np.ndarray

    @classmethod
    def setup(cls, settings, d, delta, seed_index):
        data, theta0, a, b = sweep.trial_setup(settings, d, delta, seed_index)
        u = hard_directions(data["theta_star"], settings["link"])
        return cls(settings, data, theta0, a, b, u, np.asarray(data["X"], dtype=np.float64))

    def run(self, steps, grid, checkpoint, grad_tol=None):
        """Restricted GD (``gd.run(restrict=U)``) with ``checkpoint(t, Θ)`` at the grid steps."""
        s = self.settings
        return gd.run(
            self.data,
            self.theta0,
            self.a,
            self.b,
            s["activation"],
            s["lr"],
            steps,
            grid,
            restrict=self.hard,
            grad_tol=grad_tol,
            checkpoint=checkpoint,
        )

    def spectrum(self, theta, k):
        """Bottom of the Hessian spectrum at Θ (``hessian.spectrum``)."""
        return hessian.spectrum(
            self.x64, self.data["y"], theta, self.a, self.b, self.settings["activation"], self.hard, k=k
        )

    def weights(self, theta):
        """(g², w) of the state Θ (single neuron, first hard direction): ``outlier.empirical_weights``."""
        return outlier.empirical_weights(
            self.x64, self.data["y"], theta, self.a, self.b, self.settings["activation"], self.hard[:, 0]
        )

    def semi_empirical_outlier(self, theta, weights=None):
        """The outlier equations (``outlier``) fed with the state's own empirical law of (g², w).

        A check of the outlier theory against the measured spectrum, not a prediction (outlier.md §4,
        item 3).  Single neuron and a single hard direction only; NaN otherwise.  ``weights``: the
        state's (g², w) when already computed.
        """
        if theta.shape[0] != 1 or self.hard.shape[1] != 1:
            return outlier.OutlierResult(np.nan, np.nan, np.nan, False)
        g2, w = self.weights(theta) if weights is None else weights
        n, d = self.x64.shape
        return outlier.OutlierSolver(g2, w, (d - 1) / n).solve()


def plateau_run(settings, d, delta, seed_index, checkpoints, grad_tol, k, log=print):
    """Restricted GD to the plateau with spectra along the way; a dict of arrays for one seed."""
    prob = RestrictedProblem.setup(settings, d, delta, seed_index)
    grid = gd.log_grid(settings["steps"], checkpoints)
    slot = {int(t): i for i, t in enumerate(grid)}
    rec = {  # NaN where the run ended before a checkpoint
        "eigenvalues": np.full((grid.size, k), np.nan),
        "overlap2": np.full((grid.size, k), np.nan),
        "bulk_edge": np.full(grid.size, np.nan),
        "hard_block": np.full(grid.size, np.nan),
    }
    start = time.perf_counter()

    def checkpoint(t, theta):
        spec = prob.spectrum(theta, k)
        i = slot[t]
        rec["eigenvalues"][i], rec["overlap2"][i] = spec.eigenvalues, spec.hard_overlap2
        rec["bulk_edge"][i], rec["hard_block"][i] = spec.bulk_edge, spec.hard_block_min

    traj = prob.run(settings["steps"], grid, checkpoint, grad_tol)
    final = prob.spectrum(traj.theta, k)
    predicted = prob.semi_empirical_outlier(traj.theta)
    bulk = hessian.bulk_eigenvalues(
        prob.x64, prob.data["y"], traj.theta, prob.a, prob.b, settings["activation"], prob.hard
    )
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
