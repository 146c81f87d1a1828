"""The hard coordinate at finite d as a linear Gaussian process (docs/escape.md, eqs. (E1)–(E6), (E9);
the code labels (U), (Ru), (V), (S) below are its (E1), (E3), (E5), (E9)).

With u^t = √d θ₁^t (θ* = e₁, single neuron), to linear order in u along the restricted dynamics:

    u^{t+1} = u^t − (η/√δ) ξ^t − η Σ_{s≤t} R_g(t, s) u^s,   u⁰ ~ N(0, r₀²),   ξ ~ GP(0, C_g)    (U)

with the g²-weighted kernels of the restricted DMFT (``dmft.DMFTResult``; docs/dmft.md (D10)): C_g(t, s) =
E[g² r^t r^s], R_g(t, s) = E[g² w^t J^t_s] (so R_g(t, t) = H₁₁(t)).  Its solution is

    u^t = R_u(t, 0) u⁰ − (η/√δ) Σ_{s<t} R_u(t, s+1) ξ^s,
    R_u(t+1, s) = R_u(t, s) − η Σ_{v=s}^{t} R_g(t, v) R_u(v, s),   R_u(s, s) = 1                (Ru)
    Cov(u^t, u^t′) = r₀² R_u(t, 0) R_u(t′, 0)
                     + (η²/δ) Σ_{s<t} Σ_{s′<t′} R_u(t, s+1) R_u(t′, s′+1) C_g(s, s′)              (V)

At dimension d the overlap is ρ^t ≈ |u^t| / (√d ‖θ^t‖) with ‖θ^t‖² = C_θ(t, t), while it is small.

ξ^t is the finite-n fluctuation of the hard gradient (1/n) Σ_i g_i r_i^t about its mean E[g r^t], so
its kernel is the centred C_g(t, s) − E[g r^t] E[g r^s] (the mean vanishes at m = 0, exactly with
twin paths).  Around the DMFT *with signal* ((E8), ``dmft.solve(m0=…)``, overlap m^t of order one) the
same linearisation gives the finite-d fluctuation of the overlap, θ₁^t = m^t + ε^t/√d: ε obeys (U)
with that solution's kernels (∂E[g r^t]/∂m^s = E[g² w^t J^t_s] = R_g(t, s)) and ε⁰ = 0 for a planted
start.  Neglected there: the O(1/√d) fluctuation of the bulk kernels themselves, which couples to m
at order m (it vanishes by symmetry at m = 0).                                                     (S)

The GD runs these are compared with are in ``cells.escape``.
"""

import numpy as np
from scipy import special

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


def covariance(result, r0, r_u=None):
    """Cov(u^t, u^t′) for 0 ≤ t, t′ ≤ T by (V), from a DMFT result with its C_g and R_g; ``r_u``: a
    propagator R_u(t, s) (lower triangular, unit diagonal) in place of (Ru)'s, e.g. the finite
    Hessian's (docs/escape.md (E26)), with the same forcing."""
    r_u = propagator(result.r_g, result.lr) if r_u is None else r_u
    size = r_u.shape[0]
    kick = r_u[:, 1:size]  # kick[t, s] = R_u(t, s+1), zero for s ≥ t
    noise = kick @ noise_kernel(result)[: size - 1, : size - 1] @ kick.T
    return r0**2 * np.outer(r_u[:, 0], r_u[:, 0]) + result.lr**2 / result.delta * noise


def initial_share(result, r0):
    """The part of Var(u^t) in (V) that the initial hard coordinate carries,
    r₀² R_u(t, 0)² / V(t, t), for 0 ≤ t ≤ T: 1 at t = 0; the rest is the finite-n forcing ξ."""
    r_u = propagator(result.r_g, result.lr)
    return r0**2 * r_u[:, 0] ** 2 / np.diag(covariance(result, r0))


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
