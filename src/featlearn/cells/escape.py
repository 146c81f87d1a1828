"""The escape, simulated (docs/escape.md): unrestricted GD runs of the hard coordinate against the
process of ``theory.escape``, one (model, δ) cell at a time.

* :func:`linear_stage_cell`: unrestricted runs with their exact linearisation (``cells.linearisation``,
  eq. (E7)) against the covariance (V) = (E5) of the linear process (E1) from the restricted DMFT;
* :func:`planted_run`, :func:`signal_cell`: runs from a planted overlap m₀ against the DMFT with
  signal (E8) and its finite-d overlap (S) = (E9), with where each run ends (‖∇R̂‖ and the smallest
  Hessian eigenvalue by Lanczos).
"""

import numpy as np

from featlearn.cells import linearisation
from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import hard_directions
from featlearn.model import network
from featlearn.model.hessian_spectrum import smallest_eigenvalue
from featlearn.theory import dmft
from featlearn.theory.delta_nn import replica_mean
from featlearn.theory.escape import covariance, finite_d_overlap


def linear_stage_cell(settings, delta, log=print):
    """Simulation and theory of the hard coordinate for one (model, δ): ``settings.trials``
    unrestricted runs with their exact linearisation (``linearisation``) over ``settings.steps``,
    and the covariance (V) of the process from the DMFT with ``settings.n_paths`` paths over
    ``settings.dmft_steps`` (NaN beyond), averaged over ``settings.replicas`` independent path sets
    (replica r from the identity (…, N, r)), with the standard error of its diagonal V(t)
    (``theory_var_se``, ``delta_nn.replica_mean``)."""
    s = settings
    identity = (s.seed, "escape", s.experiment, s.activation, s.link, float(delta), int(s.n_paths))
    size = s.dmft_steps + 1
    covs, norms = np.empty((s.replicas, size, size)), np.empty((s.replicas, size))
    for r in range(s.replicas):
        res = dmft.solve_for(s, delta, s.dmft_steps, s.n_paths, (*identity, r))
        covs[r], norms[r] = covariance(res, s.r0), res.norm2
        log(f"DMFT replica {r + 1}/{s.replicas} at N={s.n_paths}, T={s.dmft_steps} done")
    cell = linearisation.hard_coordinate_cell(s, s.d, delta, s.trials, s.steps, log)
    cov, norm2 = np.full((s.steps + 1, s.steps + 1), np.nan), np.full(s.steps + 1, np.nan)
    var_se = np.full(s.steps + 1, np.nan)
    cov[:size, :size], norm2[:size] = covs.mean(axis=0), norms.mean(axis=0)
    var_se[:size] = replica_mean(np.diagonal(covs, axis1=1, axis2=2))[1]
    return {**cell, "theory_cov": cov, "theory_norm2": norm2, "theory_var_se": var_se}


def planted_run(settings, delta, seed, m0):
    """Unrestricted GD from the trial's θ(0) with its hard coordinate set to m₀ (θ₁(0) = m₀):
    (θ₁^t, ‖θ^t‖) for t = 0..steps, and where it ends: ‖∇R̂‖ and the smallest Hessian eigenvalue
    λ_min (Lanczos) at θ^steps (a run that stalls at a partially aligned point is a local minimum
    when ‖∇R̂‖ ≈ 0 and λ_min > 0)."""
    data, net = trials.trial_setup(settings, settings.d, delta, seed)
    hard = hard_directions(data["theta_star"], settings.link)[:, 0]
    theta = net.theta0 - np.outer(net.theta0 @ hard, hard) + m0 * hard
    record, final = [], {}

    def checkpoint(t, th):
        record.append((th[0] @ hard, np.linalg.norm(th)))
        final["theta"] = th.copy()

    gd.run(
        data,
        gd.Network(net.activation, theta, net.a, net.b),
        gd.Schedule(lr=settings.lr, steps=settings.steps, grid=np.arange(settings.steps + 1)),
        checkpoint=checkpoint,
    )
    x, y, th = np.asarray(data["X"], dtype=np.float64), data["y"], final["theta"]
    grad = float(np.linalg.norm(network.gradient(x, y, th, net.a, net.b, net.activation)))
    lam = smallest_eigenvalue(x, y, th, net.a, net.b, net.activation)
    return np.array(record).T, (grad, lam)


def signal_cell(settings, delta, m0, log=print):
    """The DMFT with signal (twin paths) from each planted overlap m₀ of ``m0`` (a list), with its
    finite-d overlap (S), against ``settings.trials`` planted unrestricted runs at dimension
    ``settings.d``: arrays indexed [m₀, (seed,) t]."""
    s = settings
    out = {"d": s.d, "delta": delta, "m0": np.asarray(m0, float), "steps": np.arange(s.steps + 1)}
    theory_m, theory_norm2, theory_rho, theory_rho_sd, sim_m, sim_norm, sim_end = ([] for _ in range(7))
    for start in m0:
        identity = (s.seed, "escape-signal", s.experiment, s.activation, s.link, float(delta), float(start))
        res = dmft.solve_for(s, delta, s.steps, s.n_paths, identity, m0=start, twins=True)
        theory_m.append(res.m)
        theory_norm2.append(res.norm2)
        mean, sd = finite_d_overlap(res, s.d)
        theory_rho.append(mean)
        theory_rho_sd.append(sd)
        series, ends = zip(*(planted_run(s, delta, seed, start) for seed in range(s.trials)), strict=True)
        runs = np.array(series)
        sim_m.append(runs[:, 0])
        sim_norm.append(runs[:, 1])
        sim_end.append(ends)
        log(f"m0={start}: DMFT m(T)={res.m[-1]:.4f}, simulated {runs[:, 0, -1].mean():.4f}")
    return {
        **out,
        "theory_m": np.array(theory_m),
        "theory_norm2": np.array(theory_norm2),
        "theory_rho_finite_d": np.array(theory_rho),
        "theory_rho_finite_d_sd": np.array(theory_rho_sd),
        "sim_m": np.array(sim_m),
        "sim_norm": np.array(sim_norm),
        "sim_end_grad": np.array(sim_end)[..., 0],
        "sim_end_lambda_min": np.array(sim_end)[..., 1],
    }
