"""Simulated restricted GD over the DMFT horizon: the referee of the theory (``theory``).

For one (model, d, δ, seed): restricted GD (hard component removed, as in the DMFT) for
``steps`` steps, recording at every step ‖θ^t‖², the train loss and H₁₁ = (1/n) Σ g_i² w_i (the
hard diagonal entry of the Hessian), and at ``spectrum_steps`` the bottom of the Hessian spectrum
(k smallest eigenvalues, overlaps² with θ*, bulk edge) together with the semi-empirical outlier
(the outlier equations fed with the state's own (g², w): a check, outlier.md §4 item 3).
"""

import numpy as np

from .plateau import RestrictedProblem


def restricted_trajectory(settings, d, delta, seed_index, steps, spectrum_steps, k, log=print):
    """One seed; a dict of arrays (per-step arrays have length steps + 1)."""
    prob = RestrictedProblem.setup(settings, d, delta, seed_index)
    slot = {int(t): i for i, t in enumerate(spectrum_steps)}
    h11 = np.full(steps + 1, np.nan)
    spec = {
        key: np.full(
            (len(spectrum_steps), k) if key in ("eigenvalues", "overlap2") else len(spectrum_steps), np.nan
        )
        for key in ("eigenvalues", "overlap2", "bulk_edge", "semi_outlier", "semi_overlap2", "semi_bulk_edge")
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
            semi = prob.semi_empirical_outlier(theta, (g2, w))
            spec["semi_outlier"][i], spec["semi_overlap2"][i] = semi.outlier, semi.overlap2
            spec["semi_bulk_edge"][i] = semi.bulk_edge

    traj = prob.run(steps, np.arange(steps + 1), checkpoint)
    log(
        f"seed {seed_index}: {steps} steps, "
        f"lambda_min(t={spectrum_steps[-1]}) = {spec['eigenvalues'][-1, 0]:.4f}"
    )
    return {"norm2": traj.norm**2, "train_loss": traj.train_loss, "h11": h11, **spec}


def trajectory_cell(settings, d, delta, seeds, steps, spectrum_steps, k, log=print):
    """All seeds of one (model, δ) cell, stacked (leading axis = seed)."""
    runs = [restricted_trajectory(settings, d, delta, s, steps, spectrum_steps, k, log) for s in range(seeds)]
    out = {
        "d": d,
        "delta": delta,
        "steps": np.arange(steps + 1),
        "spectrum_steps": np.asarray(spectrum_steps),
    }
    for key in runs[0]:
        out[key] = np.array([r[key] for r in runs])
    return out
