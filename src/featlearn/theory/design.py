"""The theory of one design (docs/design.md): δ_NN(∞) located by root finding on the static fixed
point's outlier margin, and min_t δ_NN(t) from the DMFT with its Monte-Carlo error.

A design is a single-neuron model (σ, a, b, r₀, η, the loss and the trained layers) on a fixed
target link.  Its thresholds:

* δ_NN(∞) (docs/outlier.md, eq. (O14)): the smallest δ at which the Hessian at the static RS fixed
  point has a negative hard-direction outlier, i.e. the first zero along increasing δ of the
  margin M(δ) of the fixed point's law (``OutlierSolver.margin``, (O8)).  M is evaluated on a
  geometric scan of ``points`` values of δ over ``bracket`` (walked from the top, each solve warm
  started from its neighbour) and the first sign change is refined by Brent's method to
  ``xtol``: the root-finder of the theory models' δ_NN(∞), ``delta_nn.long_time_threshold``.  The
  AT value δE[(κw/(1 + κw))²] (O13) is reported at the root.  Statuses (``crossing``): ``ok``;
  ``none`` (M finite and ≥ 0 on the whole scan: δ_NN(∞) above the bracket, or no transition);
  ``below_bracket`` (M < 0 already at its lower end); ``unsolved`` (a fixed-point solve failed
  where the crossing could lie: next to the first negative margin, inside the refinement, or
  anywhere in a scan without a negative margin).
* δ_NN(t) for t ≤ T (docs/outlier.md, eq. (O9)): the DMFT (``delta_nn.dmft_model``, R replicas of
  N paths) on the grid δ = f·δ_anchor for the configured factors f (docs/design.md, eq. (Z8):
  δ_anchor = δ_NN(∞), or the fixed layer's, below), the first crossing per replica and t, and min
  over t ≥ 1 of the replica mean with its standard error (``analysis.theory_tables.minimum_over_time``,
  applied by ``analysis.design``).  Without an anchor there is no grid: NaN.

A trained second layer (``train`` with a and/or b): the static fixed point has no closure for the
converged (a, b) (docs/dmft.md, "A trainable second layer"), so such a design has no δ_NN(∞)
(status ``trained_layer``).  Its DMFT moves a^t and b^t by (D13) and the outlier condition reads the
law of w^t at them (docs/dmft.md, "The outlier with a trained layer"), so min_t δ_NN(t) exists; its
grid is anchored at the fixed layer's δ_NN(∞) (the same design with a and b held at their start),
which the file keeps as ``grid_anchor`` with its status.
"""

import time

import numpy as np

from featlearn.model.layers import trains_second_layer
from featlearn.theory.delta_nn import FixedPointMargin, dmft_model, long_time_threshold


def fixed_point_threshold(settings, level, bracket, points, xtol=1e-4, log=print):
    """δ_NN(∞) of one design (module docstring): the margin scanned over ``points`` geometric values
    of δ in ``bracket`` and refined by ``delta_nn.long_time_threshold``: {"scan_delta",
    "scan_margin", "scan_at", "delta_nn_inf", "at_value", "status"}."""
    margin = FixedPointMargin(settings, level)
    deltas = np.geomspace(bracket[1], bracket[0], points)  # from the top, where solves are smooth
    values, starts = [], []
    for delta in deltas:
        values.append(margin(delta))
        starts.append(margin.start)
    values, order = np.array(values), np.argsort(deltas)
    out = {"scan_delta": deltas[order], "scan_margin": values[order, 0], "scan_at": values[order, 1]}
    out |= long_time_threshold(margin, deltas, values[:, 0], starts, xtol)
    root, at = out["delta_nn_inf"], out["at_value"]
    log(f"fixed point: delta_NN(inf) = {root:.4g} ({out['status']}), AT = {at:.3g}")
    return out


def dmft_grid(anchor, factors):
    """The DMFT's δ grid f·δ_anchor (rounded to 4 significant digits), empty without an anchor."""
    if not np.isfinite(anchor):
        return []
    return [float(f"{f * anchor:.4g}") for f in factors]


def design_theory(settings, level, bracket, points, factors, n_paths, horizon, replicas, log=print):
    """δ_NN(∞) (:func:`fixed_point_threshold`) and the DMFT on :func:`dmft_grid` (``delta_nn.dmft_model``
    arrays, prefixed ``dmft_``; absent without a grid) of one design.  The grid is anchored at
    ``grid_anchor`` (with ``grid_anchor_status``): the fixed point's root, which for a trained second
    layer is the fixed layer's (the fixed point holds (a, b) at their start); such a design has no
    δ_NN(∞) of its own (NaN, AT NaN, status ``trained_layer``; module docstring)."""
    start = time.perf_counter()
    out = fixed_point_threshold(settings, level, bracket, points, log=log)
    out |= {"grid_anchor": out["delta_nn_inf"], "grid_anchor_status": out["status"]}
    if trains_second_layer(settings.train):
        out |= {"delta_nn_inf": np.nan, "at_value": np.nan, "status": "trained_layer"}
        log(f"trained layers {settings.train}: no delta_NN(inf); grid anchored at {out['grid_anchor']:.4g}")
    grid = dmft_grid(out["grid_anchor"], factors)
    if grid:
        dm = dmft_model(settings, grid, n_paths, horizon, replicas, log, train=settings.train)
        out |= {f"dmft_{key}": value for key, value in dm.items()}
    log(f"design theory done in {time.perf_counter() - start:.1f}s")
    return out
