"""GD's success probability from two stages (docs/escape.md, eqs. (E11)–(E12), "In two stages"): the
linear hard-coordinate process up to a matching time t₀, then the DMFT with signal for the fate of
the overlap it reached.  The code label (P2) below is (E12) of docs/escape.md.

Stage 2.  The restricted DMFT runs to t₀, the teacher overlap is kicked to m^{t₀} = m₀ and the DMFT
with signal ((E8), ``dmft.solve(m0=m₀, kick=t₀)``) follows it to the horizon T.  The kick succeeds when
ρ^T ≥ success_rho (the sweeps' success rule, at T instead of the step budget); its escape step is
the first t with ρ^t ≥ escape_rho.  All kicks of one δ share the same paths (common random
numbers), so the scan over a geometric grid of m₀ is paired.  The critical overlap m*(δ, t₀) (E11) is the
smallest grid value above which every kick succeeds (the geometric mean with the grid value below
it); ``monotone`` says whether the scan switched once.

Stage 1 at t₀.  u^{t₀} = √d θ₁^{t₀} ~ N(0, V(t₀)), with V of (V) = (E5) (``escape.covariance``) from the
same solution's kernels before the kick (restricted up to t₀).  Combined:

    P(success | δ, d) = P(|u^{t₀}| ≥ √d m*) = erfc(√d m* / √(2 V(t₀)))                       (P2)

The predicted escape steps and the failed trials' final ρ follow by drawing m₀ = |u^{t₀}|/√d and
reading the scan (log-linear interpolation in m₀).  t₀ must lie in the linear stage (the referee's
horizon); the prediction stands only if it does not depend on t₀ there.  Left out: the finite-n
forcing after t₀, which keeps injecting variance into u (V(t) of the process beyond t₀ is in
escape_linear_stage.csv), and everything after T.
"""

import numpy as np
from scipy import special

from featlearn.model import seeds
from featlearn.theory import dmft, escape
from featlearn.theory.prediction import QUANTILES, STEP_QUARTILES


def critical_overlap(m0s, succeeded):
    """(m*, monotone) from kicks ``m0s`` (ascending) and whether each succeeded: the geometric mean
    of the largest failing kick below the all-successful tail and the tail's first kick; the
    smallest kick if every kick succeeded; ∞ if the largest failed."""
    succeeded = np.asarray(succeeded, bool)
    monotone = bool(np.all(np.diff(succeeded.astype(int)) >= 0))
    if not succeeded[-1]:
        return float("inf"), monotone
    failing = np.flatnonzero(~succeeded)
    if failing.size == 0:
        return float(m0s[0]), monotone
    k = failing[-1]
    return float(np.sqrt(m0s[k] * m0s[k + 1])), monotone


def success_probability(m_star, variance, d):
    """(P2): P(|u| ≥ √d m*) for u ~ N(0, V)."""
    return float(special.erfc(np.sqrt(d) * m_star / np.sqrt(2 * variance)))


def _interpolate(m0s, values, m):
    return np.interp(np.log(m), np.log(m0s), values)


def draw_outcomes(m0s, final_rho, escape_step, m_star, variance, d, samples, rng):
    """Escape-step quartiles of the successful draws and 30/50/70 % final-ρ quantiles of the failed
    ones, for m₀ = |u^{t₀}|/√d with u^{t₀} ~ N(0, V): the scan read at each draw (NaN where a group
    is empty; a draw below the grid reads the grid's first kick)."""
    m = np.clip(np.abs(rng.standard_normal(samples)) * np.sqrt(variance / d), m0s[0], None)
    success = m >= m_star
    tail = (m0s >= m_star * (1 - 1e-12)) & np.isfinite(escape_step)
    steps = _interpolate(m0s[tail], escape_step[tail], m[success]) if tail.any() else np.array([])
    failed = _interpolate(m0s, final_rho, m[~success])
    quartiles = np.quantile(steps, STEP_QUARTILES) if steps.size else np.full(len(STEP_QUARTILES), np.nan)
    final = np.quantile(failed, QUANTILES) if failed.size else np.full(len(QUANTILES), np.nan)
    return quartiles, final


def kick_scan(settings, delta, t0, log=print):
    """The DMFT with signal kicked at t₀ to every m₀ of ``settings.m0`` (same paths): final ρ,
    escape step (NaN when ρ never reaches escape_rho), ρ^t of every kick, and V(t₀)."""
    s = settings
    identity = (s.seed, "two-stage", s.experiment, s.activation, s.link, float(delta), int(s.n_paths))
    final, step, rho = [], [], []
    variance = None
    for m0 in s.m0:
        res = dmft.solve_for(s, delta, s.horizon, s.n_paths, identity, m0=m0, kick=t0, twins=True)
        if variance is None:
            variance = float(escape.covariance(res, s.r0)[t0, t0])
        above = np.flatnonzero(res.rho[t0:] >= s.escape_rho)
        final.append(res.rho[-1])
        step.append(t0 + above[0] if above.size else np.nan)
        rho.append(res.rho)
        log(f"delta={delta} t0={t0} m0={m0}: rho(T)={res.rho[-1]:.3f}, escape step {step[-1]}")
    return np.array(final), np.array(step, float), np.array(rho), variance


def two_stage_cell(settings, delta, log=print):
    """(P2) and its companions for one (model, δ), every t₀ of ``settings.t0`` and d of
    ``settings.d``: arrays indexed [t₀, m₀] (the scans) and [d, t₀] (the predictions)."""
    s = settings
    m0s = np.asarray(s.m0, float)
    shape = (len(s.d), len(s.t0))
    p = np.zeros(shape)
    steps = np.full(shape + (len(STEP_QUARTILES),), np.nan)
    final_failed = np.full(shape + (len(QUANTILES),), np.nan)
    scans = {"final_rho": [], "escape_step": [], "rho": [], "variance": [], "m_star": [], "monotone": []}
    rng = np.random.default_rng(seeds.identity_entropy(s.seed, "two-stage-draws", s.experiment, float(delta)))
    for j, t0 in enumerate(s.t0):
        final, step, rho, variance = kick_scan(s, delta, t0, log)
        m_star, monotone = critical_overlap(m0s, final >= s.success_rho)
        for key, value in zip(scans, (final, step, rho, variance, m_star, monotone), strict=True):
            scans[key].append(value)
        for i, d in enumerate(s.d):
            p[i, j] = success_probability(m_star, variance, d)
            steps[i, j], final_failed[i, j] = draw_outcomes(
                m0s, final, step, m_star, variance, d, s.samples, rng
            )
        log(f"delta={delta} t0={t0}: m*={m_star:.4g} (monotone: {monotone}), V(t0)={variance:.3g}")
    return {
        "delta": float(delta),
        "d": np.asarray(s.d),
        "t0": np.asarray(s.t0),
        "m0": m0s,
        "p_success": p,
        "crossing_step": steps,
        "final_rho_failed": final_failed,
        **{key: np.array(value) for key, value in scans.items()},
    }
