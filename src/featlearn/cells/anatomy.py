"""The escape, trial by trial (docs/escape.md, "The anatomy of an escape", eqs. (E13)–(E16)).

A sweep's own trial (same data, same initialisation, same seed: ``gd.trials.trial_setup``) is run
by unrestricted GD exactly as the sweep runs it (its escape step t_e, final step and outcome),
keeping Θ at the steps of :func:`planned_steps` (every step up to ``dense_steps``, log-spaced
after), at the ``window`` steps before t_e (or before the end of a trial that never escapes), at
t_e and at its last step.  Restricted GD (hard direction projected out) from the
same start records Θ_R at the same steps and runs on to its plateau (‖∇R̂‖ ≤ ``grad_tol``, or
the budget), whose step is recorded.  Two more runs on the trial's own data, as the sweep runs it,
say what seeds its escape (:func:`reseeded_runs`): from its start without the hard component
(u⁰ = 0) and from a fresh start.  At every recorded state of both runs :func:`state_anatomy`
takes the whole Hessian spectrum (dense ``eigh``; one neuron, one hard direction θ*):

* ‖∇R̂‖, ρ and the hard coordinate u = √d θ·θ*;
* the ``k`` smallest eigenvalues λ_j with their hard overlap² (v_j·θ*)², the participation ratio
  of Xv_j and the largest single sample's share of its negative curvature (:func:`localisation`);
* θ*'s weight on the whole negative eigenspace, W₋ = Σ_{λ_j < 0} (v_j·θ*)²  (E13), and the number
  of negative eigenvalues;
* the curvature along θ* itself, θ*ᵀHθ*, and the bulk edge (:func:`bulk_edge`).
"""

import time
from collections import deque

import numpy as np
from scipy import optimize
from scipy.linalg import blas

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import hard_directions
from featlearn.model import network
from featlearn.theory.outlier import empirical_weights

OVERLAP_FLOOR = 1e-14
"""A squared component (v·θ*)² below this counts as zero in :func:`bulk_edge` (round-off of a unit
vector in float64)."""


RUN_FIELDS = (
    "escape_step",
    "final_step",
    "final_rho",
    "success",
    "plateau_step",
    "zero_u_final_rho",
    "reinit_final_rho",
    "data_z1",
)
"""The per-trial scalars of an anatomy cell: the trial's own run, its restricted twin's plateau step,
the final ρ of its two reseeded runs (:func:`reseeded_runs`) and its data's z₁
(:func:`first_hermite_score`)."""


def planned_steps(budget, dense, points):
    """The steps a trial's states are kept at, fixed before it runs: 0 … ``dense`` every step and
    about ``points`` log-spaced steps up to the step budget."""
    return np.union1d(np.arange(dense + 1), gd.log_grid(budget, points)).astype(int)


def localisation(x, w, v):
    """(participation ratio, top share) of the direction v (unit) over the samples, s = Xv:

        PR = (Σ_i s_i²)² / (n Σ_i s_i⁴),    share = max_i c_i / Σ_i c_i,  c_i = max(−w_i s_i², 0)   (E14)

    PR ≈ 1/3 for a delocalised v (Gaussian s) and O(1/δ) when v follows one sample x_i; ``share`` is
    the largest single sample's part of the negative curvature vᵀHv ⊃ (1/n) Σ w_i s_i² (NaN when no
    sample curves it downward)."""
    s2 = (x @ v) ** 2
    negative = np.maximum(-w * s2, 0.0)
    total = negative.sum()
    share = float(negative.max() / total) if total > 0 else np.nan
    return float(s2.sum() ** 2 / (s2.size * (s2**2).sum())), share


def bulk_edge(eigenvalues, components):
    """The smallest eigenvalue of H compressed to θ*'s orthogonal complement, from H's whole spectrum
    (λ ascending) and θ*'s components c_j = v_j·θ*: eigenvalues of the compression are the λ_j with
    c_j = 0 and the roots of the secular equation

        Σ_j c_j² / (λ_j − μ) = 0,                                                                  (E15)

    one in each gap between consecutive λ_j with c_j ≠ 0 (Cauchy interlacing); the smallest is the
    lesser of the first λ_j with c_j = 0 and the root between the first two λ_j with c_j ≠ 0."""
    c2 = components**2
    free = np.flatnonzero(c2 <= OVERLAP_FLOOR)
    edge = eigenvalues[free[0]] if free.size else np.inf
    live = np.flatnonzero(c2 > OVERLAP_FLOOR)
    lam, weight = eigenvalues[live], c2[live]
    gap = np.flatnonzero(np.diff(lam) > 0)
    if gap.size:
        lo, hi = lam[gap[0]], lam[gap[0] + 1]

        def secular(mu):
            return float(np.sum(weight / (lam - mu)))

        span = hi - lo
        root = optimize.brentq(secular, lo + 1e-12 * span, hi - 1e-12 * span, xtol=1e-14 * max(span, 1.0))
        edge = min(edge, root)
    return float(edge if np.isfinite(edge) else eigenvalues[0])


ANATOMY_FIELDS = ("grad_norm", "rho", "u", "neg_weight", "n_neg", "h11", "bulk_edge")
"""The scalar observables of one state; the per-eigenvector ones are ``EIGEN_FIELDS``."""
EIGEN_FIELDS = ("eigenvalues", "overlap2", "participation", "top_share")


def weighted_gram(x, w):
    """H = (1/n) Xᵀ diag(w) X, upper triangle only: one ``syrk`` over the rows of positive weight
    minus one over those of negative weight (n·d² multiply-adds in all)."""
    n, up = x.shape[0], w > 0

    def gram(rows, weights):
        return blas.dsyrk(1.0 / n, (np.sqrt(weights)[:, None] * rows).T, trans=0)

    return gram(x[up], w[up]) - gram(x[~up], -w[~up])


def state_anatomy(x, y, theta, a, b, activation, star, k):
    """The observables of the state Θ (one neuron; ``star`` the unit hard direction θ*; ``x`` float64):
    the whole spectrum of H = (1/n) Xᵀdiag(w)X (docs/model.md, eq. (M7)) by dense ``eigh``, with
    θ*ᵀHθ* = Σ_j λ_j c_j² from θ*'s components c_j = v_j·θ*."""
    d = x.shape[1]
    _, w = empirical_weights(x, y, theta, a, b, activation, star[:, None])
    lam, vecs = np.linalg.eigh(weighted_gram(x, w), UPLO="U")
    comp = vecs.T @ star
    local = np.array([localisation(x, w, vecs[:, j]) for j in range(k)])
    return {
        "grad_norm": float(np.linalg.norm(network.gradient(x, y, theta, a, b, activation))),
        "rho": float(abs(theta[0] @ star) / np.linalg.norm(theta[0])),
        "u": float(np.sqrt(d) * theta[0] @ star),
        "neg_weight": float(np.sum(comp[lam < 0] ** 2)),
        "n_neg": float(np.count_nonzero(lam < 0)),
        "h11": float(lam @ comp**2),
        "bulk_edge": bulk_edge(lam, comp),
        "eigenvalues": lam[:k],
        "overlap2": comp[:k] ** 2,
        "participation": local[:, 0],
        "top_share": local[:, 1],
    }


def _missing(k):
    """The observables of a state the run never reached (NaN)."""
    return {**dict.fromkeys(ANATOMY_FIELDS, np.nan), **{name: np.full(k, np.nan) for name in EIGEN_FIELDS}}


def _unrestricted_states(settings, data, net, planned, star):
    """Run the trial once as the sweep runs it (``gd.trials.schedule``), seeing every step: ({step: Θ}
    at the ``planned`` steps, at the ``window`` steps before the escape step t_e (first
    ρ ≥ ``escape_rho``; the last steps of a trial that never escapes) and at t_e and the final step;
    its Trajectory)."""
    kept, recent, before = {}, deque(maxlen=settings.window + 1), {}

    def checkpoint(t, theta):
        recent.append((t, theta.copy()))
        if t in planned:
            kept[t] = recent[-1][1]
        if not before and abs(theta[0] @ star) >= settings.escape_rho * np.linalg.norm(theta[0]):
            before.update(recent)

    every = np.arange(settings.steps + 1)
    traj = gd.run(data, net, trials.schedule(settings, data, net, grid=every), checkpoint=checkpoint)
    kept.update(before or dict(recent))
    kept[traj.final_step] = traj.theta.copy()
    return {t: kept[t] for t in sorted(kept) if t <= traj.final_step}, traj


def trial_anatomy(settings, d, delta, trial):
    """One sweep trial's anatomy: its outcome, the recorded steps, and the observables of
    :func:`state_anatomy` along the unrestricted (``full_*``) and the restricted (``restricted_*``)
    run at those steps, with the restricted run's plateau step (−1: not reached within the budget)
    and the observables of its last state (``plateau_*``)."""
    data, net = trials.trial_setup(settings, d, delta, trial)
    star = hard_directions(data["theta_star"], settings.link)
    planned = set(planned_steps(settings.steps, settings.dense_steps, settings.anatomy_points).tolist())
    full, traj = _unrestricted_states(settings, data, net, planned, star[:, 0])
    steps = np.array(list(full), dtype=int)
    restricted = {}
    plateau = gd.run(
        data,
        net,
        gd.Schedule(
            lr=settings.lr, steps=settings.steps, grid=steps, restrict=star, grad_tol=settings.grad_tol
        ),
        checkpoint=lambda t, theta: restricted.update({t: theta.copy()}),
    )
    x, y, a, b = np.asarray(data["X"], dtype=np.float64), data["y"], net.a, net.b
    out = {
        "steps": steps,
        "escape_step": traj.escape_step,
        "final_step": traj.final_step,
        "final_rho": traj.final_rho,
        "success": traj.final_rho >= settings.success_rho,
        "plateau_step": plateau.final_step if plateau.converged else -1,
        **reseeded_runs(settings, d, delta, trial, data, net, star),
    }

    def anatomy(theta):
        return state_anatomy(x, y, theta, a, b, net.activation, star[:, 0], settings.k)

    for run, states in (("full", full), ("restricted", restricted)):
        rows = [anatomy(states[t]) if t in states else _missing(settings.k) for t in steps]
        for name in (*ANATOMY_FIELDS, *EIGEN_FIELDS):
            out[f"{run}_{name}"] = np.array([r[name] for r in rows])
    out["data_z1"] = first_hermite_score(y, x @ star[:, 0])
    for name, value in anatomy(plateau.theta).items():
        out[f"plateau_{name}"] = value
    return out


def first_hermite_score(y, g):
    """The training set's empirical first Hermite coefficient of the labels along θ*, in units of its
    own standard error (g_i = x_i·θ*):

        z₁ = Σ_i y_i g_i / (Σ_i y_i² g_i²)^{1/2}                                                (E16d)

    For an even link the population coefficient E[y g] is 0, so z₁ ≈ N(0, 1) over data sets: the
    component along θ* that a finite sample's labels carry as if θ* were an easy direction."""
    yg = np.asarray(y, dtype=np.float64) * g
    return float(yg.sum() / np.sqrt(np.sum(yg**2)))


def without_hard_component(net, star):
    """The network ``net`` with the hard components of its start removed, Θ(0)(I − UUᵀ): u⁰ = 0, the
    bulk part θ⊥(0) kept."""
    theta = net.theta0 - (net.theta0 @ star) @ star.T
    return gd.Network(net.activation, theta, net.a, net.b)


def reseeded_runs(settings, d, delta, trial, data, net, star):
    """What seeds the trial's escape (E16c): the trial run again as the sweep runs it, on its own data,
    (a) from its own start with the hard component removed (:func:`without_hard_component`) and (b)
    from a fresh start (``trials.fresh_start``, label "reinit"); their final ρ (``zero_u_final_rho``,
    ``reinit_final_rho``).  If (a) keeps the outcome, the initial hard coordinate u⁰ did not decide
    it; if (b) keeps it more often than the cell's outcomes would by chance, the data set did."""
    out, ends = {}, np.array([0, settings.steps])
    for name, start in (
        ("zero_u", without_hard_component(net, star)),
        ("reinit", trials.fresh_start(settings, d, delta, trial, data, "reinit")),
    ):
        out[f"{name}_final_rho"] = gd.run(
            data, start, trials.schedule(settings, data, start, grid=ends)
        ).final_rho
    return out


def _pad(series, width):
    """Stack per-trial series (first axis of unequal length) into an array padded with NaN."""
    shape = (len(series), width, *np.shape(series[0])[1:])
    out = np.full(shape, np.nan)
    for i, s in enumerate(series):
        out[i, : len(s)] = s
    return out


def anatomy_cell(settings, d, delta, log=print):
    """Trials 0 … ``settings.trials`` − 1 of the sweep cell (d, δ): per-trial outcomes, and each
    observable indexed [trial, recorded state (, eigenvector)], padded with NaN (steps with −1)."""
    start, runs = time.perf_counter(), []
    for trial in range(settings.trials):
        runs.append(trial_anatomy(settings, d, delta, trial))
        r = runs[-1]
        log(
            f"trial {trial}: escape_step={r['escape_step']} final_rho={r['final_rho']:.3f} "
            f"plateau_step={r['plateau_step']} states={r['steps'].size} ({time.perf_counter() - start:.1f}s)"
        )
    width = max(r["steps"].size for r in runs)
    out = {
        "d": d,
        "delta": delta,
        "lr": settings.lr,
        "escape_rho": settings.escape_rho,
        "success_rho": settings.success_rho,
    }
    for name in RUN_FIELDS:
        out[name] = np.array([r[name] for r in runs])
    steps = np.full((len(runs), width), -1)
    for i, r in enumerate(runs):
        steps[i, : r["steps"].size] = r["steps"]
    out["steps"] = steps
    for key in runs[0]:
        if key.startswith(("full_", "restricted_")):
            out[key] = _pad([r[key] for r in runs], width)
        elif key.startswith("plateau_") and key != "plateau_step":
            out[key] = np.array([r[key] for r in runs])
    return out
