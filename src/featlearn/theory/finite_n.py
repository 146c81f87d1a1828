"""GD's success probability at finite d from the finite system's own early window (docs/escape.md,
"Predicted from the early window", eqs. (E19)–(E22)).

The anatomy of the escape (docs/escape.md, (E13)–(E18)) found that GD's successful trials escape
on a negative, θ*-aligned Hessian eigenvalue that the finite-n Hessian has from initialisation and
loses within a few steps; the trials the window carries far enough succeed.  On y = z² − 1 the
weights w are unbounded below, so that window exists only at finite n (docs/outlier.md, "Unbounded
weights").  This module predicts it from theory alone, with the finite system's own samples:

* a **path set** is the restricted DMFT solved with N = n = round(δd) paths, the number of samples
  of the system at (d, δ), so that its extreme tail is that of the system; path sets are drawn
  independently (seeded by their index), as the trials' data sets are;
* per path set the outlier equations (O3)–(O8) on the law of (g², w^t) at every step give the
  aligned outlier λ_o(t) (overlap² ≥ ``aligned``) and the window's end, its first close,

      t_w = 1 + the last step of the first run of steps t ≤ T with an aligned negative outlier  (E19)

  (0 when there is none; T when it never closes: then ``window_open``): one window only, so that the
  long-time outlier of δ > δ_NN(∞), which may appear late in the horizon after the early window
  has closed, does not extend it (the first run may open after t = 0: the anatomy's (E16b) is
  anchored at the start, where the finite Hessian nearly always has the aligned direction);
* candidate A, the linear process (E1) run to the window's end:

      P_A = P( max_{t ≤ t_w} |u^t| / √(d ‖θ^t‖²) ≥ ρ_c )                                      (E20)

  sampled exactly from its Gaussian law (E5) (``prediction.crossing_statistics``);
* candidate C, the integrated aligned curvature against the growth the escape needs:

      Γ = Σ_{t < t_w, aligned} ln(1 − η λ_o(t)),
      P_C = P( r₀|Z| e^Γ ≥ √d ρ_c ‖θ^{t_w}‖ ) = erfc( √d ρ_c ‖θ^{t_w}‖ e^{−Γ} / (√2 r₀) )       (E21)

  (u⁰ = √d θ₁⁰ ~ N(0, r₀²) amplified by the aligned mode alone);
* the same two with the finite Hessian (E24) of the path set (``theory.finite_hessian``: the law of
  (g², w^t) at the system's own n and d instead of its n → ∞ limit) giving the window's end and the
  aligned eigenvalue λ_al(t) in place of the outlier equations' t_w and λ_o(t);
* the **success level** (E25): the DMFT with signal ((E8), N = 2n twin paths, i.e. n distinct samples
  of the path set's law at the system's size) kicked at the finite Hessian's window end t_w to
  m₀ and followed for ``level_horizon`` steps; m* is the smallest kick of the geometric grid
  ``level_m0`` whose ρ at the horizon reaches ``success_rho`` (bisection, success taken monotone in
  m₀; the geometric mean with the grid value below it), in place of a fixed ρ_c:

      P_L,growth = erfc( √d m* e^{−Γ} / (√2 r₀) ),   P_L,linear = erfc( √d m* / √(2 V(t_w, t_w)) )   (E25)

  with Γ and t_w of the finite Hessian, V of (E5) (``level_d``: the d at which it is computed);
* the **forced window** (E26): the linear process (E1) with the finite Hessian's propagator in place
  of the DMFT's memory, u^{t+1} = a_t u^t − (η/√δ) ξ^t, a_t = 1 − η λ_al(t) on the aligned steps and
  1 − η H₁₁(t) before the window opens, so that the window amplifies the finite-n forcing ξ as well as
  u⁰; with G(t, s) = Π_{s ≤ v < t} a_v,

      V_H(t_w) = r₀² G(t_w, 0)² + (η²/δ) Σ_{s, s' < t_w} G(t_w, s+1) G(t_w, s'+1) K_g(s, s'),
      P_F = erfc( √d ρ_c ‖θ^{t_w}‖ / √(2 V_H) ),   P_L,forced = erfc( √d m* / √(2 V_H) )         (E26)

  (``escape.covariance`` with this propagator);
* the **trial's own DMFT** (E27): the path set's paths drawn i.i.d. (``sampling: iid``, the default
  of this family: a finite sample of n, whose labels carry a first Hermite coefficient E_n[y g] ≠ 0
  as a trial's data set does, so that E_n[g r^t] forces m as the data set forces GD's hard
  coordinate) and the DMFT with signal, without twins, started at t = 0 from m⁰ = r₀ u_q/√d at the
  quantiles u_q = Φ⁻¹((q + ½)/Q), q < Q
  (``init_quantiles``) of the initial hard coordinate, followed for ``level_horizon`` steps; the path
  set's success probability is the share of quantiles whose ρ at the horizon reaches ``success_rho``:

      P_I = (1/Q) Σ_q 1[ ρ^T(m⁰ = r₀ u_q/√d) ≥ success_rho ]                                  (E27)

  (no window, no ρ_c, no linearisation: the early window, the forcing and the nonlinear growth are
  the DMFT's own; ``init_d``: the d at which it is computed);
* the prediction at (d, δ) is the mean over path sets (the trials' data sets vary too), with its
  standard error:

      P(success | δ, d) = E_paths[P],  its s.e. = sd / √R.                                    (E22)

ρ_c, the horizon T, the aligned level, the finite Hessian's k, the level's horizon and grid and the
quantiles Q are settings, fixed before any comparison with GD; ``hessian_d``, ``level_d`` and
``init_d`` list the d at which the finite Hessian, the success level and (E27) are computed (their
cost).  ``sampling`` draws every solve of a path set (``dmft.SAMPLINGS``).
"""

import math

import numpy as np
from scipy import special

from featlearn.model import seeds
from featlearn.theory import dmft, escape, finite_hessian
from featlearn.theory.delta_nn import outlier_track
from featlearn.theory.finite_hessian import aligned_steps
from featlearn.theory.prediction import crossing_statistics, gaussian_paths
from featlearn.theory.two_stage import success_probability


def samples_of(d, delta):
    """n = round(δd), the samples of the system at (d, δ): a path set's N."""
    return int(round(delta * d))


def first_run_end(hits):
    """(one past the last step of the first run of True steps of ``hits``, capped at its last index;
    whether that run reaches the last index): (0, False) when none is True."""
    hits = np.asarray(hits, bool)
    if not hits.any():
        return 0, False
    start = int(np.argmax(hits))
    after = np.flatnonzero(~hits[start:])
    if after.size == 0:
        return hits.size - 1, True
    return start + int(after[0]), False


def growth_exponent(eigenvalue, hits, lr, t_w):
    """Γ of (E21): Σ over the aligned steps t < t_w (``hits``) of ln(1 − η λ(t)), λ the aligned
    eigenvalue (the outlier λ_o, or λ_al of the finite Hessian (E24))."""
    use = (np.arange(eigenvalue.size) < t_w) & hits
    return float(np.sum(np.log1p(-lr * eigenvalue[use])))


def growth_probability(gamma, norm2, d, rho_c, r0):
    """P_C of (E21) for a norm² ‖θ^{t_w}‖² at the window's end: P(r₀|Z| e^Γ ≥ √d ρ_c ‖θ^{t_w}‖)."""
    return success_probability(rho_c * np.sqrt(norm2) * np.exp(-gamma), r0**2, d)


def bisect_level(succeeds, grid):
    """m* of (E25) on an ascending ``grid`` by bisection, for a ``succeeds(m₀)`` taken monotone in m₀:
    the geometric mean of the largest failing and the smallest succeeding grid value (the grid's
    first value when it succeeds, ∞ when its last fails), as ``two_stage.critical_overlap`` reads a
    monotone scan of the whole grid; about log₂ of the grid's size calls."""
    lo, hi = -1, len(grid)  # lo fails (or lies below the grid), hi succeeds (or lies above it)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if succeeds(float(grid[mid])):
            hi = mid
        else:
            lo = mid
    if hi == len(grid):
        return float("inf")
    return float(grid[0]) if lo < 0 else float(np.sqrt(grid[lo] * grid[hi]))


def success_level(settings, d, delta, identity, t0):
    """m* of (E25): the DMFT with signal on 2n twin paths (the label "level" added to the path set's
    identity, the same paths for every kick) kicked at t₀ and followed for ``level_horizon`` steps."""
    s = settings

    def succeeds(m0):
        res = dmft.solve_for(
            s,
            delta,
            s.level_horizon,
            2 * samples_of(d, delta),
            (*identity, "level"),
            m0=m0,
            kick=t0,
            twins=True,
            sampling=s.sampling,
        )
        return bool(res.rho[-1] >= s.success_rho)

    return bisect_level(succeeds, np.asarray(s.level_m0, float))


def initial_quantiles(count):
    """u_q = Φ⁻¹((q + ½)/Q), q < Q, of (E27): the midpoint quantiles of N(0, 1), symmetric about 0 (an
    even Q never places one at 0, where the DMFT with signal is restricted GD)."""
    return special.ndtri((np.arange(count) + 0.5) / count)


def initial_success(settings, d, delta, identity):
    """P_I of (E27) for the path set ``identity``: the DMFT with signal on its own n paths (no twins),
    started from m⁰ = r₀ u_q/√d at every quantile u_q and judged at ``level_horizon``."""
    s, n = settings, samples_of(d, delta)
    wins = [
        dmft.solve_for(
            s, delta, s.level_horizon, n, identity, m0=s.r0 * u / math.sqrt(d), sampling=s.sampling
        ).rho[-1]
        >= s.success_rho
        for u in initial_quantiles(s.init_quantiles)
    ]
    return float(np.mean(wins))


def window_propagator(lam, h11, lr):
    """G(t, s) = Π_{s ≤ v < t} a_v of (E26) for 0 ≤ s ≤ t ≤ T, a_v = 1 − η λ_al(v) where ``lam`` (the
    finite Hessian's aligned eigenvalue, NaN off the aligned steps) is finite and 1 − η H₁₁(v)
    elsewhere: lower triangular with unit diagonal."""
    a = np.where(np.isfinite(lam), 1 - lr * lam, 1 - lr * np.asarray(h11))
    size = a.size
    g = np.eye(size)
    for t in range(1, size):
        g[t, :t] = g[t - 1, :t] * a[t - 1]
    return g


def level_probabilities(m_star, gamma, variance, d, r0):
    """(P_L,growth, P_L,linear) of (E25) for the level m*, the growth exponent Γ and V(t_w, t_w): both
    P(|u| ≥ √d m*) for a centred Gaussian u (``two_stage.success_probability``), u = r₀ Z e^Γ or
    u ~ N(0, V)."""
    return success_probability(m_star * np.exp(-gamma), r0**2, d), success_probability(m_star, variance, d)


def _finite_hessian_window(res, d, identity, s):
    """(t_w, open, Γ, λ_al) of the path set's finite Hessian (E24): its rows drawn from the path set's
    identity with the label "rows", the aligned scan to the first close, Γ as in (E21)."""
    rows = finite_hessian.surrogate_rows(
        res.g2, d, np.random.default_rng(seeds.identity_entropy(*identity, "rows"))
    )
    hits, lam = finite_hessian.aligned_scan(rows, res.w, s.aligned, s.k)
    t_f, still_open = first_run_end(hits)
    return t_f, still_open, growth_exponent(lam, hits, s.lr, t_f), lam


def _hessian_readings(hessian, res, linear, growth, s, d):
    """The finite-Hessian entries of a path set: window, Γ, λ_al, the forced variance V_H(t_w) (E26)
    and P of the three readings at every ρ_c; NaN where ``hessian`` is None (d not in ``hessian_d``:
    not computed)."""
    if hessian is None:
        nan = np.full(len(s.rho_c), np.nan)
        t_f, still_open, gamma, lam = np.nan, np.nan, np.nan, np.full(s.horizon + 1, np.nan)
        forced_variance, p_linear, p_growth, p_forced = np.nan, nan, nan, nan
    else:
        t_f, still_open, gamma, lam = hessian
        p_linear, p_growth = linear(t_f), growth(gamma, t_f)
        propagator = window_propagator(lam, res.h11, s.lr)
        forced_variance = escape.covariance(res, s.r0, propagator)[t_f, t_f]
        scale = np.sqrt(res.norm2[t_f])
        p_forced = np.array([success_probability(rc * scale, forced_variance, d) for rc in s.rho_c])
    return {
        "hessian_window_end": t_f,
        "hessian_window_open": still_open,
        "hessian_growth_exponent": gamma,
        "hessian_forced_variance": forced_variance,
        "p_hessian_linear": p_linear,
        "p_hessian_growth": p_growth,
        "p_hessian_forced": p_forced,
        "hessian_lambda": lam,
    }


def _level_readings(s, d, delta, identity, hessian, cov, window):
    """The success level's entries of a path set (E25), (E26): m* at the finite Hessian's window end
    t_w and the three probabilities, from V(t_w, t_w) of (E5) (``cov``) and V_H(t_w) of (E26) (in
    ``window``), repeated over the ρ_c levels (the level replaces ρ_c); NaN where d is not one of
    ``level_d`` (or the finite Hessian was not computed)."""
    if hessian is None or int(d) not in s.level_d:
        m_star, p = np.nan, (np.nan, np.nan, np.nan)
    else:
        t_w, _, gamma, _ = hessian
        m_star = success_level(s, d, delta, identity, int(t_w))
        p = (
            *level_probabilities(m_star, gamma, cov[t_w, t_w], d, s.r0),
            success_probability(m_star, window["hessian_forced_variance"], d),
        )
    levels = len(s.rho_c)
    return {
        "level": m_star,
        "p_level_growth": np.full(levels, p[0]),
        "p_level_linear": np.full(levels, p[1]),
        "p_level_forced": np.full(levels, p[2]),
    }


def path_set(settings, d, delta, index):
    """One path set at (d, δ): the restricted DMFT with N = round(δd) paths over ``horizon`` steps, its
    aligned outlier track, window end, growth exponent, and P_A, P_C at every ρ_c; the same from its
    finite Hessian (E24) where d is one of ``hessian_d`` (NaN elsewhere); the success level (E25) where d
    is also one of ``level_d``; the trial's own DMFT (E27) where d is one of ``init_d`` (repeated over
    the ρ_c levels, which it does not use)."""
    s = settings
    identity = (s.seed, "finite-n", s.experiment, s.activation, s.link, float(delta), int(d), int(index))
    res = dmft.solve_for(s, delta, s.horizon, samples_of(d, delta), identity, sampling=s.sampling)
    track = outlier_track(res, np.arange(s.horizon + 1))
    outlier, overlap2 = track["outlier"], track["overlap2"]
    hits = aligned_steps(outlier, overlap2, s.aligned)
    t_w, still_open = first_run_end(hits)
    gamma = growth_exponent(outlier, hits, s.lr, t_w)
    t_h, curvature_open = first_run_end(res.h11 < 0)
    hessian = _finite_hessian_window(res, d, identity, s) if int(d) in s.hessian_d else None
    cov = escape.covariance(res, s.r0)
    rng = np.random.default_rng(seeds.identity_entropy(*identity, "paths"))
    u = gaussian_paths(cov, s.samples, rng)

    def linear(end):  # (E20) over the steps t ≤ end
        return np.array(
            [crossing_statistics(u[:, : end + 1], res.norm2[: end + 1], d, rc)[0] for rc in s.rho_c]
        )

    def growth(exponent, end):  # (E21)
        return np.array([growth_probability(exponent, res.norm2[end], d, rc, s.r0) for rc in s.rho_c])

    window = _hessian_readings(hessian, res, linear, growth, s, d)
    initial = initial_success(s, d, delta, identity) if int(d) in s.init_d else np.nan
    return {
        "window_end": t_w,
        "window_open": still_open,
        "growth_exponent": gamma,
        "p_linear": linear(t_w),
        "p_growth": growth(gamma, t_w),
        "curvature_end": t_h,
        "curvature_open": curvature_open,
        "p_curvature": linear(t_h),
        **window,
        **_level_readings(s, d, delta, identity, hessian, cov, window),
        "p_initial": np.full(len(s.rho_c), initial),
        "outlier": outlier,
        "overlap2": overlap2,
        "h11": res.h11,
        "norm2": res.norm2,
        "variance": np.diag(cov),
        "u0_share": escape.initial_share(res, s.r0),
    }


def finite_n_cell(settings, d, delta, log=print):
    """(E19)–(E22) at one (d, δ) of a theory model: arrays indexed [path set (, ρ_c or step)]."""
    sets, n = [], samples_of(d, delta)
    for index in range(settings.path_sets):
        sets.append(path_set(settings, d, delta, index))
        p = sets[-1]
        log(
            f"path set {index}: N={n} t_w={p['window_end']} Gamma={p['growth_exponent']:.3f} "
            f"P_A={np.round(p['p_linear'], 3).tolist()} P_C={np.round(p['p_growth'], 3).tolist()} "
            f"finite Hessian: t_w={p['hessian_window_end']} Gamma={p['hessian_growth_exponent']:.3f} "
            f"level m*={p['level']:.4g} P_I={p['p_initial'][0]:.3g}"
        )
    out = {key: np.array([p[key] for p in sets]) for key in sets[0]}
    return {**out, "d": d, "delta": delta, "n": n, "rho_c": np.asarray(settings.rho_c)}
