"""The restricted GD plateau and its Hessian spectrum (the mechanism behind the escape; docs/outlier.md,
"The simulated spectra").

For one (activation, d, δ, seed): restricted GD (hard component projected out of Θ(0) and of
every gradient, ``gd.run(restrict=U)``) is run until ‖∇R̂‖ ≤ grad_tol or the step budget ends.
At the checkpoint steps of a log grid and at the final state the bottom of the Hessian spectrum is
recorded (``model.hessian_spectrum``: k smallest eigenvalues, their hard overlaps², the bulk edge, the
hard block minimum H₁₁); at the final state also the whole bulk spectrum (for histograms).  The
spectral-threshold scan's cells (:func:`threshold_scan_cell`) record the final state alone.
"""

import time
from dataclasses import dataclass

import numpy as np

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.io.results import stack_runs
from featlearn.model import hessian_spectrum as hessian
from featlearn.model.links import get_link
from featlearn.theory import outlier


def hard_directions(theta_star, link):
    """U: the columns of Θ* that are hard for ``link`` (orthonormal)."""
    return theta_star[:, list(get_link(link).hard)]


@dataclass
class RestrictedProblem:
    """One seed of restricted GD: its data regenerated from the trial identity
    (``gd.trials.trial_setup``), the hard directions U and X in float64 for the spectra."""

    settings: object  # of a hessian_cell or theory_sim_cell job (``pipeline.jobs``)
    data: dict
    net: gd.Network
    hard: np.ndarray  # U ∈ R^{d×h}
    x64: np.ndarray

    @classmethod
    def setup(cls, settings, d, delta, seed_index):
        data, net = trials.trial_setup(settings, d, delta, seed_index)
        u = hard_directions(data["theta_star"], settings.link)
        return cls(settings, data, net, u, np.asarray(data["X"], dtype=np.float64))

    def run(self, steps, grid, checkpoint, grad_tol=None):
        """Restricted GD (``gd.run`` with restrict=U) with ``checkpoint(t, Θ)`` at the grid steps."""
        schedule = gd.Schedule(
            lr=self.settings.lr, steps=steps, grid=grid, restrict=self.hard, grad_tol=grad_tol
        )
        return gd.run(self.data, self.net, schedule, checkpoint=checkpoint)

    def _args(self, theta):
        return self.x64, self.data["y"], theta, self.net.a, self.net.b, self.net.activation

    def spectrum(self, theta, k):
        """Bottom of the Hessian spectrum at Θ (``model.hessian_spectrum``)."""
        return hessian.spectrum(*self._args(theta), self.hard, k=k)

    def bulk(self, theta):
        """The whole spectrum of the Hessian on the complement of the hard subspace."""
        return hessian.bulk_eigenvalues(*self._args(theta), self.hard)

    def weights(self, theta):
        """(g², w) of the state Θ (single neuron, first hard direction): ``outlier.empirical_weights``."""
        return outlier.empirical_weights(*self._args(theta), self.hard[:, 0])

    def semi_empirical_outlier(self, theta, weights=None):
        """The outlier equations (``outlier``) fed with the state's own empirical law of (g², w):
        (its ``OutlierResult``, its margin (O8)).

        A check of the outlier theory against the measured spectrum, not a prediction
        (docs/outlier.md: (O3)–(O8) fed with the state's own law, "The simulated spectra"); the
        margin's zero in δ is the threshold of the state GD reached (docs/outlier.md, "The plateau
        against the fixed point").  Single neuron and a single hard direction only; NaN otherwise.
        ``weights``: the state's (g², w) when already computed.
        """
        if theta.shape[0] != 1 or self.hard.shape[1] != 1:
            return outlier.OutlierResult(np.nan, np.nan, np.nan, False), np.nan
        return semi_empirical(*(self.weights(theta) if weights is None else weights), *self.x64.shape)


def semi_empirical(g2, w, n, d):
    """(its ``OutlierResult``, its margin (O8)) of the outlier equations (O3)–(O8) fed with the
    empirical law of (g², w) of n samples in dimension d (γ = (d − 1)/n)."""
    solver = outlier.OutlierSolver(g2, w, (d - 1) / n)
    return solver.solve(), solver.margin()


def _final_state(prob, traj, log, start, seed_index, *, bulk):
    """What a plateau cell records of the state GD reached (:func:`final_state_record`), with its
    spectrum, semi-empirical outlier (:meth:`RestrictedProblem.semi_empirical_outlier`) and, if
    ``bulk``, whole bulk spectrum (for histograms) computed from ``prob``."""
    final = prob.spectrum(traj.theta, prob.settings.k)
    semi, semi_margin = prob.semi_empirical_outlier(traj.theta)
    whole = prob.bulk(traj.theta) if bulk else None
    return final_state_record(traj, final, semi, semi_margin, log, start, seed_index, whole)


def final_state_record(traj, final, semi, semi_margin, log, start, seed_index, bulk=None):
    """The record of one seed's final state: its losses and norm (``traj``, a ``gd.engine``
    Trajectory or its fields), the bottom of its spectrum ``final`` (a ``Spectrum``), the
    semi-empirical outlier ``semi`` with its margin and, if given, the whole ``bulk`` spectrum."""
    log(
        f"seed {seed_index}: steps={traj.final_step} converged={traj.converged} "
        f"lambda_min={final.eigenvalues[0]:.4f} overlap2={final.hard_overlap2[0]:.3f} "
        f"bulk_edge={final.bulk_edge:.4f} ({time.perf_counter() - start:.1f}s)"
    )
    return {
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
        "h11": final.h11,
        **({} if bulk is None else {"bulk": bulk}),
        "semi_empirical_outlier": semi.outlier,
        "semi_empirical_overlap2": semi.overlap2,
        "semi_empirical_bulk_edge": semi.bulk_edge,
        "semi_empirical_margin": semi_margin,
    }


def plateau_run(settings, delta, seed_index, log=print):
    """Restricted GD to the plateau with spectra along the way; a dict of arrays for one seed.

    ``settings``: a hessian_cell job's (d, the step budget, grad_tol, checkpoints, k).  Besides
    :func:`_final_state` (with the bulk spectrum): the bottom of the spectrum at the ``checkpoints``
    steps of a log grid.
    """
    k = settings.k
    prob = RestrictedProblem.setup(settings, settings.d, delta, seed_index)
    grid = gd.log_grid(settings.steps, settings.checkpoints)
    slot = {int(t): i for i, t in enumerate(grid)}
    rec = {  # NaN where the run ended before a checkpoint
        "eigenvalues": np.full((grid.size, k), np.nan),
        "overlap2": np.full((grid.size, k), np.nan),
        "bulk_edge": np.full(grid.size, np.nan),
        "h11": np.full(grid.size, np.nan),
    }
    start = time.perf_counter()

    def checkpoint(t, theta):
        spec = prob.spectrum(theta, k)
        i = slot[t]
        rec["eigenvalues"][i], rec["overlap2"][i] = spec.eigenvalues, spec.hard_overlap2
        rec["bulk_edge"][i], rec["h11"][i] = spec.bulk_edge, spec.h11

    traj = prob.run(settings.steps, grid, checkpoint, settings.grad_tol)
    return {
        "checkpoint_steps": grid,
        **{f"checkpoint_{key}": value for key, value in rec.items()},
        **_final_state(prob, traj, log, start, seed_index, bulk=True),
    }


def threshold_scan_run(settings, delta, seed_index, log=print):
    """Restricted GD to the plateau and :func:`_final_state` alone (what the spectral-threshold
    tables read, docs/finite_size.md (F14)): no spectra along the way, no bulk spectrum.

    ``settings``: a spectral_threshold_cell job's; the losses and the norm are recorded at the first and
    last steps only.
    """
    prob = RestrictedProblem.setup(settings, settings.d, delta, seed_index)
    start = time.perf_counter()
    traj = prob.run(settings.steps, gd.log_grid(settings.steps, 2), None, settings.grad_tol)
    return _final_state(prob, traj, log, start, seed_index, bulk=False)


def plateau_cell(settings, delta, log=print, run=plateau_run):
    """All ``settings.seeds`` seeds of one (activation, δ) cell, stacked (leading axis = seed);
    ``run``: :func:`plateau_run` or :func:`threshold_scan_run`."""
    runs = [run(settings, delta, seed, log) for seed in range(settings.seeds)]
    return stack_runs(runs, d=settings.d, delta=delta)


def threshold_scan_cell(settings, delta, log=print):
    """A cell of the spectral-threshold scan: :func:`plateau_cell` of :func:`threshold_scan_run`."""
    return plateau_cell(settings, delta, log, run=threshold_scan_run)
