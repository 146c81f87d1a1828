"""Predicted against measured success (``theory.prediction``, ``theory.two_stage``; docs/escape.md,
eqs. (E10) and (E12)): rows per
(model, d, δ, level) and the predicted δ₅₀(d) beside the sweeps' fitted δ₅₀ with its verdict.  The
level is the prediction's free choice: ρ_c for the linear process, the matching time t₀ for the two
stages."""

import math

import numpy as np

from featlearn.analysis.criteria import agrees, allowed_gap
from featlearn.analysis.thresholds import FITTED
from featlearn.theory.crossing import first_crossing


def _cell_at(rows, d, delta):
    return next((r for r in rows if int(r["d"]) == d and math.isclose(r["delta"], delta)), None)


def prediction_rows(model, sweep, cells, sweep_rows, level="rho_c"):
    """One row per (d, δ, level) of the prediction ``cells`` (dicts from ``prediction_cell`` or
    ``two_stage_cell``, one per δ): the predicted P(success), crossing-step quartiles and
    failed-trial ρ quantiles, with the sweep's measured counterparts where it has a cell at that
    (d, δ)."""
    rows = []
    for cell in sorted(cells, key=lambda c: float(c["delta"])):
        delta = float(cell["delta"])
        for i, d in enumerate(cell["d"]):
            measured = _cell_at(sweep_rows, int(d), delta)
            for j, value in enumerate(cell[level]):
                q25, q50, q75 = cell["crossing_step"][i, j]
                f30, f50, f70 = cell["final_rho_failed"][i, j]
                row = {
                    "model": model,
                    "sweep": sweep,
                    "d": int(d),
                    "delta": delta,
                    level: float(value),
                    "p_success_predicted": float(cell["p_success"][i, j]),
                }
                if "p_success_half_horizon" in cell:
                    row["p_success_predicted_half_horizon"] = float(cell["p_success_half_horizon"][i, j])
                row |= {
                    "escape_step_predicted_q25": float(q25),
                    "escape_step_predicted_median": float(q50),
                    "escape_step_predicted_q75": float(q75),
                    "rho_failed_predicted_q30": float(f30),
                    "rho_failed_predicted_median": float(f50),
                    "rho_failed_predicted_q70": float(f70),
                }
                if measured is not None:
                    valid = measured["trials"] - measured["diverged"]
                    row |= {
                        "trials": int(measured["trials"]),
                        "p_success_empirical": measured["successes"] / valid if valid else float("nan"),
                        "escape_step_empirical_median": measured["escape_step_median"],
                        "rho_failed_empirical_median": measured["rho_failed_median"],
                    }
                rows.append(row)
    return rows


def half_crossing(deltas, p):
    """(δ where ``p`` first reaches ½ along ``deltas``, status): ``crossing.first_crossing`` of ½ − p;
    NaN unless its status is "ok" ("below": already ½ at the first δ, "none": never)."""
    value, status = first_crossing(deltas, [0.5 - x for x in p])
    return (value if status == "ok" else float("nan")), status


def horizon_limited(predicted, status, half, tolerance):
    """Whether a predicted δ₅₀ is set by the horizon T rather than by the process (docs/escape.md):
    P never reaches ½ by T (status "none"), or the prediction at T/2 is missing or moves by more
    than ``tolerance``."""
    if status == "none":
        return True
    return bool(np.isfinite(predicted) and not (np.isfinite(half) and abs(predicted - half) <= tolerance))


def delta50_rows(model, settings, sweep, cells, fits, delta_nn_long_time, tolerance, level="rho_c"):
    """Per (d, level): δ₅₀ predicted (where the predicted P first exceeds ½ on the model's δ grid,
    ``crossing.first_crossing`` of ½ − P; NaN with its status when it does so below the grid or
    never), at half the horizon and whether it is horizon-limited (``horizon_limited``), and,
    where the sweep has that d, its fitted δ₅₀ ± error with its profile interval, the allowed gap
    (that interval's side towards the prediction, at least ``tolerance``) and whether the two agree
    within it (``criteria.agrees``)."""
    cells = sorted(cells, key=lambda c: float(c["delta"]))
    deltas = [float(c["delta"]) for c in cells]
    rows = []
    for i, d in enumerate(cells[0]["d"]):
        fit = next((f for f in fits if int(f["d"]) == int(d) and f["status"] in FITTED), None)
        for j, value in enumerate(cells[0][level]):
            predicted, status = half_crossing(deltas, [c["p_success"][i, j] for c in cells])
            row = {
                "model": model,
                "activation": settings.activation,
                "link": settings.link,
                "sweep": sweep,
                "d": int(d),
                level: float(value),
                "delta50_predicted": predicted,
                "delta50_predicted_status": status,
            }
            if "p_success_half_horizon" in cells[0]:
                half = half_crossing(deltas, [c["p_success_half_horizon"][i, j] for c in cells])[0]
                row["delta50_predicted_half_horizon"] = half
                row["horizon_limited"] = horizon_limited(predicted, status, half, tolerance)
            row["delta_nn_long_time"] = delta_nn_long_time
            if fit is not None:
                interval = (fit["delta50_low"], fit["delta50_high"])
                row |= {
                    "delta50_empirical": fit["delta50"],
                    "delta50_empirical_err": fit["delta50_err"],
                    "delta50_empirical_low": interval[0],
                    "delta50_empirical_high": interval[1],
                    "tolerance": allowed_gap(
                        fit["delta50_err"], tolerance, fit["delta50"], predicted, interval
                    ),
                    "agrees": agrees(fit["delta50"], fit["delta50_err"], predicted, tolerance, interval),
                }
            rows.append(row)
    return rows


def two_stage_rows(model, sweep, cells, sweep_rows):
    """``prediction_rows`` of the two-stage cells (level t₀), each with the critical overlap m*,
    V(t₀) and whether the kick scan switched once (``monotone``)."""
    rows = prediction_rows(model, sweep, cells, sweep_rows, level="t0")
    for row in rows:
        cell = next(c for c in cells if math.isclose(float(c["delta"]), row["delta"]))
        j = int(np.flatnonzero(cell["t0"] == row["t0"])[0])
        row |= {
            "m_star": float(cell["m_star"][j]),
            "variance_t0": float(cell["variance"][j]),
            "monotone": bool(cell["monotone"][j]),
        }
    return rows


def kick_scan_rows(model, cells):
    """One row per (δ, t₀, m₀) of the kick scans: ρ at the horizon and the escape step."""
    rows = []
    for cell in sorted(cells, key=lambda c: float(c["delta"])):
        for j, t0 in enumerate(cell["t0"]):
            for k, m0 in enumerate(cell["m0"]):
                rows.append(
                    {
                        "model": model,
                        "delta": float(cell["delta"]),
                        "t0": int(t0),
                        "m0": float(m0),
                        "rho_final": float(cell["final_rho"][j, k]),
                        "escape_step": float(cell["escape_step"][j, k]),
                    }
                )
    return rows
