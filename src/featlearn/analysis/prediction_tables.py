"""Predicted against measured success (``theory.prediction``): rows per (model, d, δ, ρ_c) and
the predicted δ₅₀(d) beside the sweeps' fitted δ₅₀ with its verdict."""

import math

import numpy as np

from featlearn.analysis.thresholds import FITTED, first_crossing


def _cell_at(rows, d, delta):
    return next((r for r in rows if int(r["d"]) == d and math.isclose(r["delta"], delta)), None)


def prediction_rows(model, sweep, cells, sweep_rows):
    """One row per (d, δ, ρ_c) of the prediction ``cells`` (dicts from ``prediction_cell``, one per
    δ): the predicted P(success), crossing-step quartiles and failed-trial ρ quantiles, with the
    sweep's measured counterparts where it has a cell at that (d, δ)."""
    rows = []
    for cell in sorted(cells, key=lambda c: float(c["delta"])):
        delta = float(cell["delta"])
        for i, d in enumerate(cell["d"]):
            measured = _cell_at(sweep_rows, int(d), delta)
            for j, rho_c in enumerate(cell["rho_c"]):
                q25, q50, q75 = cell["crossing_step"][i, j]
                f30, f50, f70 = cell["final_rho_failed"][i, j]
                row = {
                    "model": model,
                    "sweep": sweep,
                    "d": int(d),
                    "delta": delta,
                    "rho_c": float(rho_c),
                    "p_success_predicted": float(cell["p_success"][i, j]),
                    "p_success_predicted_half_horizon": float(cell["p_success_half_horizon"][i, j]),
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


def _crossing(deltas, p):
    """(δ where p first exceeds ½, status): ``thresholds.first_crossing`` of ½ − p, NaN unless "ok"."""
    value, status = first_crossing(deltas, [0.5 - x for x in p])
    return (value if status == "ok" else float("nan")), status


def delta50_rows(model, settings, sweep, cells, fits, delta_nn_long_time, tolerance):
    """Per (d, ρ_c): δ₅₀ predicted (where the predicted P first exceeds ½ on the model's δ grid,
    ``thresholds.first_crossing`` of ½ − P; NaN with its status when it does so below the grid or
    never) and,
    where the sweep has that d, its fitted δ₅₀ ± error and whether the two agree within
    max(2σ, ``tolerance``)."""
    cells = sorted(cells, key=lambda c: float(c["delta"]))
    deltas = [float(c["delta"]) for c in cells]
    rows = []
    for i, d in enumerate(cells[0]["d"]):
        fit = next((f for f in fits if int(f["d"]) == int(d) and f["status"] in FITTED), None)
        for j, rho_c in enumerate(cells[0]["rho_c"]):
            predicted, status = _crossing(deltas, [c["p_success"][i, j] for c in cells])
            half, _ = _crossing(deltas, [c["p_success_half_horizon"][i, j] for c in cells])
            row = {
                "model": model,
                "activation": settings.activation,
                "link": settings.link,
                "sweep": sweep,
                "d": int(d),
                "rho_c": float(rho_c),
                "delta50_predicted": predicted,
                "delta50_predicted_status": status,
                "delta50_predicted_half_horizon": half,
                "delta_nn_long_time": delta_nn_long_time,
            }
            if fit is not None:
                error = abs(predicted - fit["delta50"])
                row |= {
                    "delta50_empirical": fit["delta50"],
                    "delta50_empirical_err": fit["delta50_err"],
                    "tolerance": max(2 * fit["delta50_err"], tolerance),
                    "agrees": bool(np.isfinite(error) and error <= max(2 * fit["delta50_err"], tolerance)),
                }
            rows.append(row)
    return rows
