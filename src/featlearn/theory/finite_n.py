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
* the prediction at (d, δ) is the mean over path sets (the trials' data sets vary too), with its
  standard error:

      P(success | δ, d) = E_paths[P],  its s.e. = sd / √R.                                    (E22)

ρ_c, the horizon T, the aligned level and the finite Hessian's k are settings, fixed before any
comparison with GD; ``hessian_d`` lists the d at which the finite Hessian is computed (its cost).
"""

import numpy as np
from scipy import special

from featlearn.model import seeds
from featlearn.theory import dmft, escape, finite_hessian
from featlearn.theory.delta_nn import outlier_track
from featlearn.theory.finite_hessian import aligned_steps
from featlearn.theory.prediction import crossing_statistics, gaussian_paths


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
    """P_C of (E21) for a norm² ‖θ^{t_w}‖² at the window's end."""
    return float(special.erfc(np.sqrt(d) * rho_c * np.sqrt(norm2) * np.exp(-gamma) / (np.sqrt(2) * r0)))


def _finite_hessian_window(res, d, identity, s):
    """(t_w, open, Γ, λ_al) of the path set's finite Hessian (E24): its rows drawn from the path set's
    identity with the label "rows", the aligned scan to the first close, Γ as in (E21)."""
    rows = finite_hessian.surrogate_rows(
        res.g2, d, np.random.default_rng(seeds.identity_entropy(*identity, "rows"))
    )
    hits, lam = finite_hessian.aligned_scan(rows, res.w, s.aligned, s.k)
    t_f, still_open = first_run_end(hits)
    return t_f, still_open, growth_exponent(lam, hits, s.lr, t_f), lam


def _hessian_readings(hessian, linear, growth, s):
    """The finite-Hessian entries of a path set: window, Γ, λ_al and P of the two readings at every
    ρ_c; NaN where ``hessian`` is None (d not in ``hessian_d``: not computed)."""
    if hessian is None:
        nan = np.full(len(s.rho_c), np.nan)
        t_f, still_open, gamma, lam = np.nan, np.nan, np.nan, np.full(s.horizon + 1, np.nan)
        p_linear = p_growth = nan
    else:
        t_f, still_open, gamma, lam = hessian
        p_linear, p_growth = linear(t_f), growth(gamma, t_f)
    return {
        "hessian_window_end": t_f,
        "hessian_window_open": still_open,
        "hessian_growth_exponent": gamma,
        "p_hessian_linear": p_linear,
        "p_hessian_growth": p_growth,
        "hessian_lambda": lam,
    }


def path_set(settings, d, delta, index):
    """One path set at (d, δ): the restricted DMFT with N = round(δd) paths over ``horizon`` steps, its
    aligned outlier track, window end, growth exponent, and P_A, P_C at every ρ_c; the same from its
    finite Hessian (E24) where d is one of ``hessian_d`` (NaN elsewhere)."""
    s = settings
    identity = (s.seed, "finite-n", s.experiment, s.activation, s.link, float(delta), int(d), int(index))
    res = dmft.solve_for(s, delta, s.horizon, samples_of(d, delta), identity)
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

    return {
        "window_end": t_w,
        "window_open": still_open,
        "growth_exponent": gamma,
        "p_linear": linear(t_w),
        "p_growth": growth(gamma, t_w),
        "curvature_end": t_h,
        "curvature_open": curvature_open,
        "p_curvature": linear(t_h),
        **_hessian_readings(hessian, linear, growth, s),
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
            f"finite Hessian: t_w={p['hessian_window_end']} Gamma={p['hessian_growth_exponent']:.3f}"
        )
    out = {key: np.array([p[key] for p in sets]) for key in sets[0]}
    return {**out, "d": d, "delta": delta, "n": n, "rho_c": np.asarray(settings.rho_c)}
