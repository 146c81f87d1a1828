"""GD's success probability at finite d from the linear hard-coordinate process alone, used over a
long horizon (docs/escape.md, eq. (E10), "Predicted success probability").

The hard coordinate u^t = √d θ₁^t is a centred Gaussian process with covariance Cov(u^t, u^t′)
((V) of ``escape.covariance``, docs/escape.md eq. (E5)), and the overlap at dimension d is
ρ^t = |u^t| / √(d ‖θ^t‖²) with ‖θ^t‖² from the restricted DMFT.  A trial is predicted to escape when
the process crosses a critical overlap ρ_c within the horizon T, beyond which the linear picture no
longer describes it:

    P(success | δ, d) = P( max_{t ≤ T} |u^t| / √(d ‖θ^t‖²) ≥ ρ_c )                       (E10)

sampled exactly (the process is (T+1)-dimensional).  Also predicted: the first crossing step of
the trials that cross (their escape steps, to ρ_c rather than to escape_rho), and the overlap at T
of those that do not (the failed trials' final ρ, 30/50/70 % quantiles).  The predicted
threshold δ₅₀(d) is where (E10) crosses ½ along δ.

What this leaves out, by construction: the nonlinear stage after the crossing, and anything after
T.  How long the linear picture actually holds is measured, not assumed: the referee's linear
horizon per model and δ (``linear_horizon`` in escape_linear_stage.csv, ``analysis.escape_tables``).
"""

import numpy as np

from featlearn.model import seeds
from featlearn.theory import dmft, escape

QUANTILES = (0.3, 0.5, 0.7)
STEP_QUARTILES = (0.25, 0.5, 0.75)


def gaussian_paths(cov, samples, rng):
    """``samples`` draws of a centred Gaussian vector with covariance ``cov`` (rows), by the
    symmetric square root (negative round-off eigenvalues clipped to 0)."""
    eigval, eigvec = np.linalg.eigh(cov)
    root = eigvec * np.sqrt(np.clip(eigval, 0.0, None))
    return rng.standard_normal((samples, cov.shape[0])) @ root.T


def crossing_statistics(u, norm2, d, rho_c):
    """For paths ``u`` (samples × (T+1)) at dimension d and level ρ_c: P of (E10), the quartiles of the
    first crossing step among the crossing paths and the 30/50/70 % quantiles of ρ^T among the
    others (NaN where a group is empty)."""
    rho = np.abs(u) / np.sqrt(d * norm2)
    above = rho >= rho_c
    crossed = above.any(axis=1)
    first = np.argmax(above, axis=1)[crossed]
    steps = np.quantile(first, STEP_QUARTILES) if first.size else np.full(len(STEP_QUARTILES), np.nan)
    stayed = rho[~crossed, -1]
    final = np.quantile(stayed, QUANTILES) if stayed.size else np.full(len(QUANTILES), np.nan)
    return float(crossed.mean()), steps, final


def predict(cov, norm2, ds, rho_cs, samples, identity):
    """(E10) and its companions for every d in ``ds`` and ρ_c in ``rho_cs``, from one set of
    ``samples`` paths (seeded by ``identity``): arrays indexed [d, ρ_c(, quantile)].  Also (E10) over
    the first half of the horizon, ``p_success_half_horizon``: how much the horizon, a free
    choice, moves the prediction."""
    rng = np.random.default_rng(seeds.identity_entropy(*identity))
    u = gaussian_paths(cov, samples, rng)
    half = u.shape[1] // 2 + 1
    shape = (len(ds), len(rho_cs))
    p, p_half = np.zeros(shape), np.zeros(shape)
    steps = np.zeros(shape + (len(STEP_QUARTILES),))
    final = np.zeros(shape + (len(QUANTILES),))
    for i, d in enumerate(ds):
        for j, rho_c in enumerate(rho_cs):
            p[i, j], steps[i, j], final[i, j] = crossing_statistics(u, norm2, d, rho_c)
            p_half[i, j] = crossing_statistics(u[:, :half], norm2[:half], d, rho_c)[0]
    return {
        "p_success": p,
        "p_success_half_horizon": p_half,
        "crossing_step": steps,
        "final_rho_failed": final,
    }


def prediction_cell(settings, delta, log=print):
    """(E10) for one (model, δ): the restricted DMFT with ``settings.n_paths`` paths over
    ``settings.horizon`` steps, its hard-coordinate covariance (V), then ``predict``."""
    s = settings
    identity = (s.seed, "prediction", s.experiment, s.activation, s.link, float(delta), int(s.n_paths))
    res = dmft.solve_for(s, delta, s.horizon, s.n_paths, identity)
    log(f"DMFT at N={s.n_paths}, T={s.horizon} done")
    cov = escape.covariance(res, s.r0)
    out = predict(cov, res.norm2, s.d, s.rho_c, s.samples, identity + ("paths",))
    for i, d in enumerate(s.d):
        log(
            f"d={d}: P(success) = "
            + ", ".join(f"{p:.3f} (rho_c={r})" for p, r in zip(out["p_success"][i], s.rho_c, strict=True))
        )
    return {
        **out,
        "delta": float(delta),
        "d": np.asarray(s.d),
        "rho_c": np.asarray(s.rho_c),
        "norm2": res.norm2,
    }
