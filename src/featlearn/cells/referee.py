"""Simulated restricted GD over the DMFT horizon: the referee of the theory (``theory``; docs/dmft.md,
"The simulated referee", and docs/outlier.md, "The simulated spectra").

For one (model, d, δ, seed): restricted GD (hard component removed, as in the DMFT) for
``steps`` steps, recording at every step ‖θ^t‖², the train loss and H₁₁ = (1/n) Σ g_i² w_i (the
hard diagonal entry of the Hessian), and at ``spectrum_steps`` the bottom of the Hessian spectrum
(k smallest eigenvalues, overlaps² with θ*, bulk edge) together with the semi-empirical outlier
(the outlier equations (O3)–(O7) of docs/outlier.md fed with the state's own (g², w): a check).
"""

import numpy as np

from featlearn.hessian.plateau import RestrictedProblem
from featlearn.io.results import stack_runs


def restricted_trajectory(settings, delta, seed_index, log=print):
    """One seed; a dict of arrays (per-step arrays have length steps + 1).

    ``settings``: a theory_sim_cell job's (d, steps = the DMFT horizon, spectrum_steps, k).
    """
    steps, spectrum_steps, k = settings.steps, settings.spectrum_steps, settings.k
    prob = RestrictedProblem.setup(settings, settings.d, delta, seed_index)
    slot = {int(t): i for i, t in enumerate(spectrum_steps)}
    h11 = np.full(steps + 1, np.nan)
    spec = {
        key: np.full(
            (len(spectrum_steps), k) if key in ("eigenvalues", "overlap2") else len(spectrum_steps), np.nan
        )
        for key in (
            "eigenvalues",
            "overlap2",
            "bulk_edge",
            "semi_empirical_outlier",
            "semi_empirical_overlap2",
            "semi_empirical_bulk_edge",
        )
    }

    def checkpoint(t, theta):
        g2, w = prob.weights(theta)
        h11[t] = np.mean(g2 * w)
        if t in slot:
            i = slot[t]
            s = prob.spectrum(theta, k)
            spec["eigenvalues"][i], spec["overlap2"][i], spec["bulk_edge"][i] = (
                s.eigenvalues,
                s.hard_overlap2,
                s.bulk_edge,
            )
            semi, _ = prob.semi_empirical_outlier(theta, (g2, w))
            spec["semi_empirical_outlier"][i], spec["semi_empirical_overlap2"][i] = (
                semi.outlier,
                semi.overlap2,
            )
            spec["semi_empirical_bulk_edge"][i] = semi.bulk_edge

    traj = prob.run(steps, np.arange(steps + 1), checkpoint)
    log(
        f"seed {seed_index}: {steps} steps, "
        f"lambda_min(t={spectrum_steps[-1]}) = {spec['eigenvalues'][-1, 0]:.4f}"
    )
    return {"norm2": traj.norm**2, "train_loss": traj.train_loss, "h11": h11, **spec}


def trajectory_cell(settings, delta, log=print):
    """All ``settings.seeds`` seeds of one (model, δ) cell, stacked (leading axis = seed)."""
    runs = [restricted_trajectory(settings, delta, seed, log) for seed in range(settings.seeds)]
    return stack_runs(
        runs,
        d=settings.d,
        delta=delta,
        steps=np.arange(settings.steps + 1),
        spectrum_steps=np.asarray(settings.spectrum_steps),
    )
