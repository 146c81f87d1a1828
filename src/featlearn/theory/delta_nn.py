"""The theory side of δ_NN: DMFT laws and fixed points fed to the outlier equations (docs/outlier.md,
eqs. (O9) and (O14)).

* δ_NN(t) is the smallest δ at which the Hessian at GD time t has a NEGATIVE hard-direction
  outlier, computed from the DMFT law of (g², w^t) (``dmft`` → ``outlier``).  On a grid of δ the
  outlier solver's margin (negative iff a negative outlier exists, ``OutlierSolver.margin``) is
  interpolated linearly to its first zero (``crossing.first_crossing``).
* The long-time value δ_NN(∞) uses the law of the static RS fixed point (``fixed_point``) instead,
  and carries its de Almeida–Thouless check: the margin is scanned over a δ grid walked from the
  top (each solve warm started from its neighbour, :class:`FixedPointMargin`), and its first sign
  change refined by Brent's method (``crossing.first_root``).  The theory models' fixed-point jobs
  (:func:`fixed_point_model`) and the designer (``design.fixed_point_threshold``) both find it so.

Tail treatment for unbounded weights (y = g² − 1 or g²: w is unbounded below at finite t): the
d → ∞ bulk then has no left edge and a finite-t threshold does not exist in that limit.  The
solver uses the N-path law as it is: its bulk edge is set by the most negative of N weights, i.e.
the law describes a system with n = N samples, extreme-value tail included.  δ_NN(t) for such links
is therefore a finite-n quantity; it is computed for several N to show how it moves.  For a
bounded link the edge is a property of the law and the result converges in N.
"""

import time

import numpy as np

from featlearn.model.layers import trains_second_layer
from featlearn.model.loss import loss_of
from featlearn.theory import dmft
from featlearn.theory.crossing import first_negative, first_root
from featlearn.theory.fixed_point import FixedPointSolver
from featlearn.theory.outlier import OutlierSolver
from featlearn.theory.prox_law import Quadrature


def outlier_track(result, times):
    """Bulk edge, outlier, overlap² and margin of the DMFT law of (g², w^t) at each t in ``times``."""
    out = {key: np.full(len(times), np.nan) for key in ("bulk_edge", "outlier", "overlap2", "margin")}
    gamma = 1.0 / result.delta
    for i, t in enumerate(times):
        solver = OutlierSolver(result.g2, result.w[t], gamma)
        res = solver.solve()
        out["bulk_edge"][i], out["outlier"][i], out["overlap2"][i] = res.bulk_edge, res.outlier, res.overlap2
        out["margin"][i] = solver.margin()
    return out


DMFT_KEYS = ("norm2", "train_loss", "h11", "bulk_edge", "outlier", "overlap2", "margin")
"""What a DMFT model file holds per replica, δ and t (docs/dmft.md, eq. (D9); docs/outlier.md)."""


def replica_mean(values):
    """Mean and standard error over the replica axis (axis 0) of ``values``: the DMFT's Monte-Carlo
    estimate from R independent path sets and its error sd/√R, over the replicas where the value
    exists (an outlier may exist in some replicas only); NaN where none has it, s.e. NaN where
    fewer than two do."""
    values = np.asarray(values, float)
    count = np.isfinite(values).sum(axis=0)
    total = np.where(np.isfinite(values), values, 0.0).sum(axis=0)
    mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    dev = np.where(np.isfinite(values), values - mean, 0.0)
    var = (dev**2).sum(axis=0) / np.maximum(count - 1, 1)
    return mean, np.where(count > 1, np.sqrt(var / np.maximum(count, 1)), np.nan)


def dmft_model(settings, deltas, n_paths, horizon, replicas=1, log=print, train=("theta",)):
    """DMFT and its outlier track for every δ of one model (a dmft_model job's settings) with ``replicas``
    independent sets of N = ``n_paths`` paths; arrays ``<key>_replicas`` indexed [replica, δ, t],
    and ``<key>`` / ``<key>_se`` their replica mean and standard error [δ, t] (``replica_mean``).
    Replica r of δ draws its paths from the identity (seed, "dmft", experiment, activation, link,
    δ, N, r).  ``train`` with "a" and/or "b": the DMFT moves the second layer by (D13) and the
    outlier condition reads the law of w^t at the trained (a^t, b^t) (docs/dmft.md, "The outlier
    with a trained layer"); a^t and b^t are then recorded too (keys ``a``, ``b``)."""
    seed = (settings.seed, "dmft", settings.experiment, settings.activation, settings.link)
    steps = np.arange(horizon + 1)
    layers = ("a", "b") if trains_second_layer(train) else ()
    runs = {key: np.full((replicas, len(deltas), steps.size), np.nan) for key in DMFT_KEYS + layers}
    for i, delta in enumerate(deltas):
        start = time.perf_counter()
        for r in range(replicas):
            res = dmft.solve(
                settings.activation,
                settings.link,
                delta,
                settings.lr,
                horizon,
                n_paths,
                (*seed, float(delta), int(n_paths), r),
                a=settings.a,
                b=settings.b,
                r0=settings.r0,
                noise=settings.noise,
                loss=loss_of(settings),
                train=tuple(train),
            )
            track = outlier_track(res, steps)
            for key in ("norm2", "train_loss", "h11", *layers):
                runs[key][r, i] = getattr(res, key)
            for key in ("bulk_edge", "outlier", "overlap2", "margin"):
                runs[key][r, i] = track[key]
        log(
            f"delta={delta} N={n_paths} x {replicas} replicas, T={horizon}: "
            f"{time.perf_counter() - start:.1f}s ({i + 1}/{len(deltas)} done)"
        )
    out = {"delta": np.asarray(deltas, float), "steps": steps, "replicas": np.int64(replicas)}
    for key, values in runs.items():
        out[key], out[f"{key}_se"] = replica_mean(values)
        out[f"{key}_replicas"] = values
    return out


class FixedPointMargin:
    """The static fixed point of one model and its outlier law at any δ, each solve warm started
    from the last one that succeeded (``start``)."""

    def __init__(self, settings, level=0):
        quadrature = Quadrature().refined(level)
        self.solver = FixedPointSolver(
            settings.activation, settings.link, settings.a, settings.b, quadrature, loss_of(settings)
        )
        self.start = None

    def solve(self, delta):
        """(fixed point, its ``OutlierSolver``, M(δ)) at δ; None where the fixed point or its bulk
        edge has no solution (the next solve then starts cold)."""
        try:
            fp = self.solver.solve(delta, self.start)
            law = OutlierSolver(fp.g2, fp.w, 1.0 / delta, fp.weights, fp.w_floor)
            value = law.margin()
        except ValueError:
            self.start = None
            return None
        self.start = (fp.kappa, fp.q)
        return fp, law, value

    def __call__(self, delta):
        """(M(δ), AT value); (NaN, NaN) where :meth:`solve` has no solution."""
        solved = self.solve(delta)
        return (np.nan, np.nan) if solved is None else (solved[2], solved[0].at_value)

    def anchored(self, start):
        """M as a function of δ alone, every solve started from ``start`` (so that a root search
        stays on the branch a scan followed)."""

        def margin(delta):
            self.start = start
            return self(delta)[0]

        return margin


def long_time_threshold(margin, deltas, values, starts, xtol=1e-4):
    """δ_NN(∞) from a scan of the fixed-point margin (``values`` at ``deltas``, with the warm
    ``starts`` the scan left after each solve): {"delta_nn_inf", "at_value", "status"}, its first
    sign change refined by Brent's method (``crossing.first_root``), each solve of the refinement
    started from the scan's solution at the first negative margin; the AT value (O13) at the root."""
    _, _, order, i = first_negative(deltas, values)
    anchor = None if i is None else starts[order[i]]
    root, status = first_root(margin.anchored(anchor), deltas, values, xtol)
    at_value = np.nan
    if status == "ok":
        margin.start = anchor
        at_value = margin(root)[1]
    return {"delta_nn_inf": root, "at_value": at_value, "status": status}


REFINEMENT_KEYS = (
    "kappa",
    "q",
    "train_loss",
    "at_value",
    "jump_mass",
    "bulk_edge",
    "outlier",
    "overlap2",
    "margin",
)
"""What the refinement study records at the reference δ, per quadrature level."""


def state_at(margin, delta):
    """The fixed point's quantities (``REFINEMENT_KEYS``) at δ from ``margin``'s current start; NaN
    where it has no solution."""
    solved = margin.solve(delta)
    if solved is None:
        return dict.fromkeys(REFINEMENT_KEYS, np.nan)
    fp, law, value = solved
    res = law.solve()
    return {
        "kappa": fp.kappa,
        "q": fp.q,
        "train_loss": fp.train_loss,
        "at_value": fp.at_value,
        "jump_mass": fp.jump_mass,
        "bulk_edge": res.bulk_edge,
        "outlier": res.outlier,
        "overlap2": res.overlap2,
        "margin": value,
    }


def refinement(settings, root, start, level, log=print, step=0.01):
    """The refinement study of δ_NN(∞) (docs/outlier.md, "Numerical error"): the state at δ_ref =
    ``root`` (the level-``level`` root, from its solution ``start``) at quadrature levels ``level``
    and ``level`` + 1 (every count doubled), and the finer level's root by one Newton step from the
    coarser one, δ(L + 1) = δ(L) − M_{L+1}(δ(L))/M_L′(δ(L)) (M_L′ a forward difference over
    ``step``; the step's own error is second order in M_{L+1}(δ(L)), far below the change it
    measures).  Keys ``refine_level``, ``refine_delta_nn_inf`` and ``refine_<key>`` for
    ``REFINEMENT_KEYS``, each indexed by level; ``refine_delta`` = δ_ref."""
    rows = []
    for lv in (level, level + 1):
        margin = FixedPointMargin(settings, lv)
        margin.start = start
        rows.append(state_at(margin, root))
        if lv == level:
            slope = (margin.anchored(start)(root + step) - rows[0]["margin"]) / step
    rows[0]["delta_nn_inf"] = root
    rows[1]["delta_nn_inf"] = root - rows[1]["margin"] / slope
    for lv, row in zip((level, level + 1), rows, strict=True):
        log(f"level {lv}: delta_NN(inf) = {row['delta_nn_inf']:.7g}, at delta = {root:.7g}: " + " ".join(
            f"{k}={row[k]:.6g}" for k in REFINEMENT_KEYS))  # fmt: skip
    out = {"refine_level": np.array([level, level + 1]), "refine_delta": float(root)}
    for key in ("delta_nn_inf", *REFINEMENT_KEYS):
        out[f"refine_{key}"] = np.array([r[key] for r in rows], float)
    return out


def fixed_point_model(settings, deltas, level=0, log=print, xtol=1e-4):
    """The RS fixed point, its AT value and its outlier for every δ of one model (walked from the
    largest δ, each solve warm started from its neighbour), δ_NN(∞) (:func:`long_time_threshold`,
    keys ``delta_nn_inf``, ``delta_nn_inf_at``, ``delta_nn_inf_status``) at quadrature level
    ``level``, and its refinement study at ``level`` + 1 (:func:`refinement`, keys ``refine_*``)."""
    margin = FixedPointMargin(settings, level)
    keys = REFINEMENT_KEYS
    out = {key: np.full(len(deltas), np.nan) for key in keys}
    starts = [None] * len(deltas)
    for i in np.argsort(deltas)[::-1]:
        delta, start = deltas[i], time.perf_counter()
        state = state_at(margin, delta)
        starts[i] = margin.start
        if not np.isfinite(state["margin"]):
            log(f"delta={delta}: no fixed point ({i + 1}/{len(deltas)})")
            continue
        for key in keys:
            out[key][i] = state[key]
        log(
            f"delta={delta}: q={state['q']:.4f} AT={state['at_value']:.3f} outlier={state['outlier']:.4f} "
            f"({time.perf_counter() - start:.1f}s, {i + 1}/{len(deltas)})"
        )
    root = long_time_threshold(margin, deltas, out["margin"], starts, xtol)
    log(f"delta_NN(inf) = {root['delta_nn_inf']:.6g} ({root['status']}), AT = {root['at_value']:.3g}")
    out |= {
        "delta": np.asarray(deltas, float),
        "delta_nn_inf": root["delta_nn_inf"],
        "delta_nn_inf_at": root["at_value"],
        "delta_nn_inf_status": root["status"],
    }
    if root["status"] == "ok":
        out |= refinement(settings, root["delta_nn_inf"], margin.start, level, log)
    return out
