"""The linear stage of the escape, theory (``theory.escape``) against simulation (``cells.escape``):
one row per (model, δ, t) of the variance of the hard coordinate u^t = √d θ₁^t and the median
overlap (docs/escape.md: V of (E5), the median overlap (E6), the referee (E7) and its linear horizon;
the planted runs against (E8) and (E9))."""

import numpy as np

from featlearn.theory.escape import median_overlap

LINEAR_TOLERANCE = 0.10
"""The linearisation "holds" while the median relative error of the referee is below this."""


def referee_error(cell):
    """Median over trials of |u_lin^t − u^t| / |u^t| at each t (0 at t = 0)."""
    lin, full = cell["linear"], cell["unrestricted"]
    return np.median(np.abs(lin - full) / np.maximum(np.abs(full), 1e-300), axis=0)


def _horizon(steps, error):
    """The last t before ``error`` first exceeds ``LINEAR_TOLERANCE``."""
    above = np.flatnonzero(error > LINEAR_TOLERANCE)
    return int(steps[above[0] - 1]) if above.size else int(steps[-1])


def linear_horizon(cell):
    """The last t before the referee's median error first exceeds ``LINEAR_TOLERANCE``."""
    return _horizon(cell["steps"], referee_error(cell))


def referee_trial_rows(model, cell, steps):
    """The referee trial by trial: per (trial, t) the hard coordinate √d θ₁^t of the unrestricted run
    and of its exact linearisation from the same seed, their relative error, and the trial's own
    linear horizon (last t before its error first exceeds ``LINEAR_TOLERANCE``)."""
    lin, full = cell["linear"], cell["unrestricted"]
    error = np.abs(lin - full) / np.maximum(np.abs(full), 1e-300)
    error[:, 0] = 0.0
    rows = []
    for trial in range(full.shape[0]):
        horizon = _horizon(cell["steps"], error[trial])
        for t in (t for t in steps if t <= cell["steps"][-1]):
            rows.append(
                {
                    "model": model,
                    "d": int(cell["d"]),
                    "delta": float(cell["delta"]),
                    "trial": trial,
                    "t": int(t),
                    "u_unrestricted": float(full[trial, t]),
                    "u_linearised": float(lin[trial, t]),
                    "relative_error": float(error[trial, t]),
                    "trial_linear_horizon": horizon,
                }
            )
    return rows


def linear_stage_rows(model, cell, steps):
    """Rows at the GD steps ``steps``: V(t) from the process with its Monte-Carlo standard error
    (over the DMFT's path replicas), Var(u^t) over the unrestricted trials and over their
    linearisations, their ratio, the median overlap (theory, simulation), the referee's median
    error and whether t is within the linear horizon."""
    d = int(cell["d"])
    variance = np.diag(cell["theory_cov"])
    rho_theory = median_overlap(cell["theory_cov"], cell["theory_norm2"], d)
    error, horizon = referee_error(cell), linear_horizon(cell)
    rows = []
    for t in steps:
        if t > cell["steps"][-1]:
            continue
        simulated = float(np.var(cell["unrestricted"][:, t], ddof=1))
        rows.append(
            {
                "model": model,
                "d": d,
                "delta": float(cell["delta"]),
                "trials": int(cell["unrestricted"].shape[0]),
                "t": int(t),
                "var_theory": float(variance[t]),
                "var_theory_se": float(cell["theory_var_se"][t]),
                "var_simulated": simulated,
                "var_linearised": float(np.var(cell["linear"][:, t], ddof=1)),
                "var_ratio": float(variance[t] / simulated),
                "rho_median_theory": float(rho_theory[t]),
                "rho_median_simulated": float(
                    np.median(
                        np.abs(cell["unrestricted"][:, t]) / (np.sqrt(d) * cell["unrestricted_norm"][:, t])
                    )
                ),
                "referee_median_error": float(error[t]),
                "within_linear_horizon": bool(t <= horizon),
                "linear_horizon": horizon,
            }
        )
    return rows


def signal_rows(model, cell, steps):
    """Rows per (m₀, t): the teacher overlap m^t and ρ^t of the DMFT with signal (d = ∞) and its
    finite-d mean and s.d. of ρ^t (``escape.finite_d_overlap``) against the planted unrestricted
    runs (mean and s.d. over seeds), and |Δρ| for both."""
    rows = []
    for i, m0 in enumerate(cell["m0"]):
        rho_theory = np.abs(cell["theory_m"][i]) / np.sqrt(cell["theory_norm2"][i])
        rho_sim = np.abs(cell["sim_m"][i]) / cell["sim_norm"][i]
        rho_finite_d = cell["theory_rho_finite_d"][i]
        for t in steps:
            if t > cell["steps"][-1]:
                continue
            rows.append(
                {
                    "model": model,
                    "d": int(cell["d"]),
                    "delta": float(cell["delta"]),
                    "m0": float(m0),
                    "seeds": int(cell["sim_m"].shape[1]),
                    "t": int(t),
                    "m_dmft": float(cell["theory_m"][i, t]),
                    "m_simulated": float(cell["sim_m"][i, :, t].mean()),
                    "m_simulated_sd": float(cell["sim_m"][i, :, t].std(ddof=1)),
                    "rho_dmft": float(rho_theory[t]),
                    "rho_simulated": float(rho_sim[:, t].mean()),
                    "rho_simulated_sd": float(rho_sim[:, t].std(ddof=1)),
                    "rho_abs_diff": float(abs(rho_theory[t] - rho_sim[:, t].mean())),
                    "rho_finite_d": float(rho_finite_d[t]),
                    "rho_finite_d_sd": float(cell["theory_rho_finite_d_sd"][i, t]),
                    "rho_finite_d_abs_diff": float(abs(rho_finite_d[t] - rho_sim[:, t].mean())),
                }
            )
    return rows


def signal_end_rows(model, cell):
    """One row per (m₀, seed) of the planted runs: the final overlap ρ, and ‖∇R̂‖ and λ_min where
    the run ends (a stalled run at ‖∇R̂‖ ≈ 0 with λ_min > 0 sits at a partially aligned minimum)."""
    rows = []
    for i, m0 in enumerate(cell["m0"]):
        rho = np.abs(cell["sim_m"][i][:, -1]) / cell["sim_norm"][i][:, -1]
        for seed, value in enumerate(rho):
            rows.append(
                {
                    "model": model,
                    "d": int(cell["d"]),
                    "delta": float(cell["delta"]),
                    "m0": float(m0),
                    "seed": seed,
                    "t": int(cell["steps"][-1]),
                    "rho_final": float(value),
                    "grad_norm_final": float(cell["sim_end_grad"][i, seed]),
                    "lambda_min_final": float(cell["sim_end_lambda_min"][i, seed]),
                }
            )
    return rows
