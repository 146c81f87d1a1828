"""The theory side of δ_NN: DMFT laws and fixed points fed to the outlier equations (docs/outlier.md,
eqs. (O9) and (O14)).

* δ_NN(t) is the smallest δ at which the Hessian at GD time t has a NEGATIVE hard-direction
  outlier, computed from the DMFT law of (g², w^t) (``dmft`` → ``outlier``).  On a grid of δ the
  outlier solver's margin (negative iff a negative outlier exists, ``OutlierSolver.margin``) is
  interpolated linearly to its first zero (``analysis.thresholds.first_crossing``).
* The long-time value uses the law of the static RS fixed point (``fixed_point``) instead, and
  carries its de Almeida–Thouless check.

Tail treatment for unbounded weights (y = g² − 1 or g²: w is unbounded below at finite t): the
d → ∞ bulk then has no left edge and a finite-t threshold does not exist in that limit.  The
solver uses the N-path law as it is: its bulk edge is set by the most negative of N weights, i.e.
the law describes a system with n = N samples, extreme-value tail included.  δ_NN(t) for such links
is therefore a finite-n quantity; it is computed for several N to show how it moves.  For a
bounded link the edge is a property of the law and the result converges in N.
"""

import time

import numpy as np

from featlearn.theory import dmft
from featlearn.theory.fixed_point import FixedPointSolver
from featlearn.theory.outlier import OutlierSolver


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


def dmft_model(settings, deltas, n_paths, horizon, log=print):
    """DMFT and its outlier track for every δ of one model (``TheoryModelSettings``) at
    N = ``n_paths``; arrays indexed [δ, t].  Each δ draws its paths from the identity
    (seed, "dmft", experiment, activation, link, δ, N)."""
    seed = (settings.seed, "dmft", settings.experiment, settings.activation, settings.link)
    steps = np.arange(horizon + 1)
    keys = ("norm2", "train_loss", "h11", "bulk_edge", "outlier", "overlap2", "margin")
    out = {key: np.full((len(deltas), steps.size), np.nan) for key in keys}
    for i, delta in enumerate(deltas):
        start = time.perf_counter()
        res = dmft.solve(
            settings.activation,
            settings.link,
            delta,
            settings.lr,
            horizon,
            n_paths,
            (*seed, float(delta), int(n_paths)),
            a=settings.a,
            b=settings.b,
            r0=settings.r0,
            noise=settings.noise,
        )
        track = outlier_track(res, steps)
        for key in ("norm2", "train_loss", "h11"):
            out[key][i] = getattr(res, key)
        for key in ("bulk_edge", "outlier", "overlap2", "margin"):
            out[key][i] = track[key]
        log(
            f"delta={delta} N={n_paths} T={horizon}: {time.perf_counter() - start:.1f}s "
            f"({i + 1}/{len(deltas)} done)"
        )
    return {"delta": np.asarray(deltas, float), "steps": steps, **out}


def fixed_point_model(settings, deltas, nodes, log=print):
    """The RS fixed point, its AT value and its outlier for every δ of one model."""
    solver = FixedPointSolver(settings.activation, settings.link, settings.a, settings.b, nodes)
    keys = ("kappa", "q", "train_loss", "at_value", "bulk_edge", "outlier", "overlap2", "margin")
    out = {key: np.full(len(deltas), np.nan) for key in keys}
    previous = None  # warm start from the neighbouring δ (walked from large δ, where it is smooth)
    for i in np.argsort(deltas)[::-1]:
        delta, start = deltas[i], time.perf_counter()
        fp = solver.solve(delta, previous)
        previous = (fp.kappa, fp.q)
        law = OutlierSolver(fp.g2, fp.w, 1.0 / delta, fp.weights)
        res = law.solve()
        values = (
            fp.kappa,
            fp.q,
            fp.train_loss,
            fp.at_value,
            res.bulk_edge,
            res.outlier,
            res.overlap2,
            law.margin(),
        )
        for key, value in zip(keys, values, strict=True):
            out[key][i] = value
        log(
            f"delta={delta}: q={fp.q:.4f} AT={fp.at_value:.3f} outlier={res.outlier:.4f} "
            f"({time.perf_counter() - start:.1f}s, {i + 1}/{len(deltas)})"
        )
    return {"delta": np.asarray(deltas, float), **out}
