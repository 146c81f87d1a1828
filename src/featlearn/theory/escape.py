"""The hard coordinate at finite d as a linear Gaussian process (shared/theory/escape.md).

With u^t = √d θ₁^t (θ* = e₁, single neuron), to linear order in u along the restricted dynamics:

    u^{t+1} = u^t − (η/√δ) ξ^t − η Σ_{s≤t} R_g(t, s) u^s,   u⁰ ~ N(0, r₀²),   ξ ~ GP(0, C_g)    (U)

with the g²-weighted kernels of the restricted DMFT (``dmft.DMFTResult``): C_g(t, s) =
E[g² r^t r^s], R_g(t, s) = E[g² w^t J^t_s] (so R_g(t, t) = H₁₁(t)).  Its solution is

    u^t = R_u(t, 0) u⁰ − (η/√δ) Σ_{s<t} R_u(t, s+1) ξ^s,
    R_u(t+1, s) = R_u(t, s) − η Σ_{v=s}^{t} R_g(t, v) R_u(v, s),   R_u(s, s) = 1                (Ru)
    Cov(u^t, u^t′) = r₀² R_u(t, 0) R_u(t′, 0)
                     + (η²/δ) Σ_{s<t} Σ_{s′<t′} R_u(t, s+1) R_u(t′, s′+1) C_g(s, s′)              (V)

At dimension d the overlap is ρ^t ≈ |u^t| / (√d ‖θ^t‖) with ‖θ^t‖² = C_θ(t, t), while it is small.

ξ^t is the finite-n fluctuation of the hard gradient (1/n) Σ_i g_i r_i^t about its mean E[g r^t], so
its kernel is the centred C_g(t, s) − E[g r^t] E[g r^s] (the mean vanishes at m = 0, exactly with
twin paths).  Around the DMFT *with signal* (``dmft.solve(m0=…)``, overlap m^t of order one) the
same linearisation gives the finite-d fluctuation of the overlap, θ₁^t = m^t + ε^t/√d: ε obeys (U)
with that solution's kernels (∂E[g r^t]/∂m^s = E[g² w^t J^t_s] = R_g(t, s)) and ε⁰ = 0 for a planted
start.  Neglected there: the O(1/√d) fluctuation of the bulk kernels themselves, which couples to m
at order m (it vanishes by symmetry at m = 0).                                                     (S)
"""

import numpy as np
from scipy import special

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import hard_directions
from featlearn.hessian.spectrum import smallest_eigenvalue
from featlearn.model import network
from featlearn.theory import dmft, linearisation

MEDIAN_ABS_NORMAL = 0.6744897501960817  # median of |Z|, Z ~ N(0, 1)


def propagator(r_g, lr):
    """R_u(t, s) for 0 ≤ s ≤ t ≤ T by (Ru), from R_g of shape (T+1, T+1) (lower triangle)."""
    size = r_g.shape[0]
    r_u = np.zeros((size + 1, size + 1))
    r_u[0, 0] = 1.0
    for t in range(size):
        r_u[t + 1, : t + 1] = r_u[t, : t + 1] - lr * (r_g[t, : t + 1] @ r_u[: t + 1, : t + 1])
        r_u[t + 1, t + 1] = 1.0
    return r_u[:size, :size]


def noise_kernel(result):
    """Cov(g r^t, g r^s) = C_g(t, s) − E[g r^t] E[g r^s]: the kernel of the forcing ξ in (U)."""
    return result.c_g - np.outer(result.gr, result.gr)


def covariance(result, r0):
    """Cov(u^t, u^t′) for 0 ≤ t, t′ ≤ T by (V), from a DMFT result with its C_g and R_g."""
    r_u = propagator(result.r_g, result.lr)
    size = r_u.shape[0]
    kick = r_u[:, 1:size]  # kick[t, s] = R_u(t, s+1), zero for s ≥ t
    noise = kick @ noise_kernel(result)[: size - 1, : size - 1] @ kick.T
    return r0**2 * np.outer(r_u[:, 0], r_u[:, 0]) + result.lr**2 / result.delta * noise


def finite_d_overlap(result, d):
    """Mean and s.d. of ρ^t at dimension d about a DMFT-with-signal solution by (S): θ₁^t ~
    N(m^t, V(t)/d) with V the variance (V) of ε (ε⁰ = 0), and ρ^t = |θ₁^t| / ‖θ^t‖ with the norm at
    its DMFT value; E|X| = σ√(2/π) e^{−μ²/2σ²} + μ(1 − 2Φ(−μ/σ)) for X ~ N(μ, σ²)."""
    mu = np.abs(result.m)
    sd = np.sqrt(np.clip(np.diag(covariance(result, 0.0)), 0.0, None) / d)
    ratio = np.divide(mu, sd, out=np.full_like(mu, np.inf), where=sd > 0)  # μ/σ (∞ where σ = 0)
    mean_abs = sd * np.sqrt(2 / np.pi) * np.exp(-0.5 * ratio**2) + mu * special.erf(ratio / np.sqrt(2))
    sd_abs = np.sqrt(np.clip(mu**2 + sd**2 - mean_abs**2, 0.0, None))
    norm = np.sqrt(result.norm2)
    return mean_abs / norm, sd_abs / norm


def median_overlap(cov, norm2, d):
    """Median of ρ^t ≈ |u^t| / (√d ‖θ^t‖) at each t."""
    return MEDIAN_ABS_NORMAL * np.sqrt(np.diag(cov) / (d * norm2))


def linear_stage_cell(settings, delta, log=print):
    """Simulation and theory of the hard coordinate for one (model, δ): ``settings.trials``
    unrestricted runs with their exact linearisation (``linearisation``) over ``settings.steps``,
    and the covariance (V) of the process from the DMFT with ``settings.n_paths`` paths over
    ``settings.dmft_steps`` (NaN beyond)."""
    s = settings
    identity = (s.seed, "escape", s.experiment, s.activation, s.link, float(delta), int(s.n_paths))
    res = dmft.solve_for(s, delta, s.dmft_steps, s.n_paths, identity)
    log(f"DMFT at N={s.n_paths}, T={s.dmft_steps} done")
    cell = linearisation.hard_coordinate_cell(s, s.d, delta, s.trials, s.steps, log)
    size = s.dmft_steps + 1
    cov, norm2 = np.full((s.steps + 1, s.steps + 1), np.nan), np.full(s.steps + 1, np.nan)
    cov[:size, :size], norm2[:size] = covariance(res, s.r0), res.norm2
    return {**cell, "theory_cov": cov, "theory_norm2": norm2}


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


def signal_cell(settings, delta, m0s, log=print):
    """The DMFT with signal (twin paths) from each planted overlap m₀, with its finite-d overlap
    (S), against ``settings.trials`` planted unrestricted runs at dimension ``settings.d``: arrays
    indexed [m₀, (seed,) t]."""
    s = settings
    out = {"d": s.d, "delta": delta, "m0": np.asarray(m0s, float), "steps": np.arange(s.steps + 1)}
    theory_m, theory_norm2, theory_rho, theory_rho_sd, sim_m, sim_norm, sim_end = ([] for _ in range(7))
    for m0 in m0s:
        identity = (s.seed, "escape-signal", s.experiment, s.activation, s.link, float(delta), float(m0))
        res = dmft.solve_for(s, delta, s.steps, s.n_paths, identity, m0=m0, twins=True)
        theory_m.append(res.m)
        theory_norm2.append(res.norm2)
        mean, sd = finite_d_overlap(res, s.d)
        theory_rho.append(mean)
        theory_rho_sd.append(sd)
        series, ends = zip(*(planted_run(s, delta, seed, m0) for seed in range(s.trials)), strict=True)
        runs = np.array(series)
        sim_m.append(runs[:, 0])
        sim_norm.append(runs[:, 1])
        sim_end.append(ends)
        log(f"m0={m0}: DMFT m(T)={res.m[-1]:.4f}, simulated {runs[:, 0, -1].mean():.4f}")
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
