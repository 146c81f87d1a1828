"""The prediction from the finite system's early window against GD (``theory.finite_n``;
docs/escape.md, eqs. (E19)–(E23)): rows per (model, d, δ, ρ_c) with the three readings' mean success
probability over path sets, and per (model, d, reading, ρ_c) the predicted δ₅₀(d) with its bootstrap
interval over path sets and its refinement check (``delta50_rows``), then beside the measured δ₅₀(d)
with the verdict (``compare_rows``).

Readings (``READINGS``): ``linear`` (E20), the linear process to the window's end; ``growth`` (E21),
the aligned growth exponent; ``curvature``, the linear process while the curvature along θ*,
H₁₁(t) = E[g² w^t], is negative; ``hessian_linear`` and ``hessian_growth``, the same two with the
window and the aligned eigenvalue of the finite Hessian (E24) in place of the outlier equations';
``hessian_forced`` (E26), the finite Hessian's propagator amplifying the finite-n forcing as well as
u⁰; ``level_growth``, ``level_linear`` and ``level_forced`` (E25), (E26), the finite Hessian's growth,
the linear process's variance and the forced variance at its window's end against the success level
m* of the DMFT with signal instead of ρ_c (the same at every ρ_c); ``initial`` (E27), the trial's own
DMFT from the quantiles of the initial hard coordinate (the same at every ρ_c).
"""

import math

import numpy as np

from featlearn.analysis.criteria import Z95, finite_median
from featlearn.analysis.prediction_tables import half_crossing
from featlearn.io.table_names import DELTA50_FINITE_N_VS_GD, ESCAPE_FINITE_N
from featlearn.model import seeds

READINGS = {
    "linear": "p_linear",
    "growth": "p_growth",
    "curvature": "p_curvature",
    "hessian_linear": "p_hessian_linear",
    "hessian_growth": "p_hessian_growth",
    "hessian_forced": "p_hessian_forced",
    "level_growth": "p_level_growth",
    "level_linear": "p_level_linear",
    "level_forced": "p_level_forced",
    "initial": "p_initial",
}
"""Reading name → the cell array of its success probability, indexed [path set, ρ_c]."""

BOOTSTRAP = 400
"""Bootstrap resamples of the path sets behind a predicted δ₅₀'s interval."""

LEVEL = 0.95
"""The level of a predicted δ₅₀'s bootstrap interval."""


def _by_delta(cells, d):
    return sorted((c for c in cells if int(c["d"]) == d), key=lambda c: float(c["delta"]))


def _entry(cell, key):
    """``cell[key]``, or NaN of the path-set shape where the cell lacks it (a cell made before the
    finite-Hessian readings existed)."""
    if key in cell:
        return cell[key]
    sets, levels = cell["p_linear"].shape
    return np.full((sets, levels), np.nan) if key.startswith("p_") else np.full(sets, np.nan)


def _computed(by_delta, key):
    """Whether reading ``key`` was computed at every δ of a d (the finite Hessian only where d is one
    of ``hessian_d``; cells of two runs may differ): a δ₅₀ needs the whole δ grid."""
    return all(np.isfinite(_entry(c, key)).all() for c in by_delta)


def initial_share_at_window(cell):
    """Per path set, the share of Var(u) that u⁰ carries at the window's end t_w (``u0_share``,
    (E21b)): how much of what the window amplifies the initial hard coordinate seeds, the rest being
    the finite-n forcing (E5); NaN for a path set without a window (t_w = 0, where the share is 1
    by definition and says nothing)."""
    share, ends = cell["u0_share"], np.asarray(cell["window_end"], int)
    return np.where(ends > 0, share[np.arange(share.shape[0]), ends], np.nan)


def cell_rows(model, sweep, cells):
    """One row per (d, δ, ρ_c): for each reading the mean P over path sets (E22) and its s.e., with
    the window's median end (E19), the share of path sets whose window is still open at the horizon,
    the median end of the negative-curvature stretch, the mean growth exponent Γ (E21), the same
    window columns for the finite Hessian (E24), the median success level m* (E25), and the median
    share of Var(u) at t_w that u⁰ seeds over the path sets with a window
    (:func:`initial_share_at_window`)."""
    rows = []
    for d in sorted({int(c["d"]) for c in cells}):
        for cell in _by_delta(cells, d):
            sets = cell["p_linear"].shape[0]
            for j, rho_c in enumerate(cell["rho_c"]):
                row = {
                    "model": model,
                    "sweep": sweep,
                    "d": d,
                    "delta": float(cell["delta"]),
                    "n": int(cell["n"]),
                }
                row |= {"rho_c": float(rho_c), "path_sets": sets}
                for name, key in READINGS.items():
                    p = _entry(cell, key)[:, j]
                    row[f"p_{name}"] = float(p.mean())
                    row[f"p_{name}_se"] = float(p.std(ddof=1) / math.sqrt(sets))
                row |= {
                    "window_end_median": float(np.median(cell["window_end"])),
                    "window_open_share": float(np.mean(cell["window_open"])),
                    "curvature_end_median": float(np.median(cell["curvature_end"])),
                    "curvature_open_share": float(np.mean(cell["curvature_open"])),
                    "growth_exponent_mean": float(np.mean(cell["growth_exponent"])),
                    "hessian_window_end_median": float(np.median(_entry(cell, "hessian_window_end"))),
                    "hessian_window_open_share": float(np.mean(_entry(cell, "hessian_window_open"))),
                    "hessian_growth_exponent_mean": float(np.mean(_entry(cell, "hessian_growth_exponent"))),
                    "level_median": float(np.median(_entry(cell, "level"))),
                    "u0_share_window_median": finite_median(initial_share_at_window(cell)),
                }
                rows.append(row)
    return rows


def predicted_delta50(deltas, p_sets, rng, bootstrap=BOOTSTRAP):
    """The predicted δ₅₀ from P per path set (``p_sets[δ index]``: an array over path sets) and its
    ``LEVEL`` interval: δ₅₀ of the mean over path sets (E22), and the 2.5 / 97.5 % quantiles of δ₅₀ over
    ``bootstrap`` resamples of the path sets of every δ (a resample without a crossing counts as
    +∞ when P stays below ½, −∞ when it starts above, so that the quantiles stay honest); the value
    from the first half of the path sets (the refinement check); and the status."""
    means = [float(np.mean(p)) for p in p_sets]
    value, status = half_crossing(deltas, means)
    half = half_crossing(deltas, [float(np.mean(p[: max(1, len(p) // 2)])) for p in p_sets])[0]
    draws = []
    for _ in range(bootstrap):
        resampled = [float(np.mean(rng.choice(p, size=len(p)))) for p in p_sets]
        v, s = half_crossing(deltas, resampled)
        draws.append(v if s == "ok" else (math.inf if s == "none" else -math.inf))
    tail = (1 - LEVEL) / 2
    low, high = np.quantile(draws, [tail, 1 - tail], method="inverted_cdf")  # no ∞ − ∞
    return {"value": value, "low": float(low), "high": float(high), "half_sets": half, "status": status}


def verdict(predicted, pred_low, pred_high, measured, measured_err):
    """Whether a predicted δ₅₀ with its 95 % interval and a measured one ± s.e. agree within two
    combined standard errors,

        |predicted − measured| ≤ 2 √(σ_p² + σ_m²),   σ_p = (high − low) / (2 · 1.96),          (E23)

    and the gap predicted − measured; (False, NaN) where either is missing or the prediction's
    interval is open."""
    if not all(math.isfinite(x) for x in (predicted, pred_low, pred_high, measured)):
        return False, float("nan")
    sigma_p = (pred_high - pred_low) / (2 * Z95)
    sigma_m = measured_err if math.isfinite(measured_err) else 0.0
    gap = predicted - measured
    return bool(abs(gap) <= 2 * math.hypot(sigma_p, sigma_m)), float(gap)


def delta50_rows(model, sweep, cells, seed):
    """Per (d, reading, ρ_c): the predicted δ₅₀(d) (``predicted_delta50``), its interval, its value from
    half the path sets and its status; no row for a reading not computed at every δ of that d
    (:func:`_computed`).  The bootstrap is seeded by (seed, model, d, reading, ρ_c)."""
    rows = []
    for d in sorted({int(c["d"]) for c in cells}):
        by_delta = _by_delta(cells, d)
        deltas = [float(c["delta"]) for c in by_delta]
        for name, key in READINGS.items():
            if not _computed(by_delta, key):
                continue
            for j, rho_c in enumerate(by_delta[0]["rho_c"]):
                rng = np.random.default_rng(
                    seeds.identity_entropy(seed, "finite-n-bootstrap", model, d, name, j)
                )
                pred = predicted_delta50(deltas, [_entry(c, key)[:, j] for c in by_delta], rng)
                row = {"model": model, "sweep": sweep, "d": d, "reading": name, "rho_c": float(rho_c)}
                rows.append(
                    row
                    | {
                        "delta50_predicted": pred["value"],
                        "delta50_predicted_low": pred["low"],
                        "delta50_predicted_high": pred["high"],
                        "delta50_predicted_half_sets": pred["half_sets"],
                        "delta50_predicted_status": pred["status"],
                    }
                )
    return rows


def compare_rows(predicted, points):
    """The rows of ``delta50_rows`` beside the measured δ₅₀(d) of ``points`` (the sweep's rows of
    finite_size_points.csv: δ₅₀, s.e. and profile interval per d), with the verdict and gap (E23)."""
    measured = {int(p["d"]): p for p in points}
    rows = []
    for r in predicted:
        m = measured.get(int(r["d"]))
        value, err = (float(m["delta50"]), float(m["delta50_err"])) if m else (math.nan, math.nan)
        agrees, gap = verdict(
            r["delta50_predicted"], r["delta50_predicted_low"], r["delta50_predicted_high"], value, err
        )
        rows.append(
            r
            | {
                "delta50_measured": value,
                "delta50_measured_err": err,
                "delta50_measured_low": float(m["delta50_low"]) if m else math.nan,
                "delta50_measured_high": float(m["delta50_high"]) if m else math.nan,
                "gap": gap,
                "agrees": agrees,
            }
        )
    return rows


def main(argv=None):
    """``python -m featlearn.analysis.finite_n_tables CELL.npz … --points POINTS.csv``: the tables of any
    finite-n cells (model: the cell's folder name) against any measured δ₅₀(d) table (the columns of
    finite_size_points.csv, e.g. ``python -m featlearn.analysis.finite_size … --out`` on a cluster run's
    cells); printed, and written with ``--out DIR``."""
    import argparse
    from pathlib import Path

    from featlearn.io.results import load_npz, read_csv, write_csv

    parser = argparse.ArgumentParser(
        prog="python -m featlearn.analysis.finite_n_tables", description=main.__doc__
    )
    parser.add_argument("cells", nargs="+", type=Path, help="escape/finite_n/<model>/d<d>_delta<delta>.npz")
    parser.add_argument(
        "--points", type=Path, required=True, help="measured delta50(d): model, d, delta50, …"
    )
    parser.add_argument(
        "--sweep", action="append", default=[], metavar="MODEL=SWEEP", help="(default: same name)"
    )
    parser.add_argument("--seed", type=int, default=0, help="seed of the bootstrap")
    parser.add_argument(
        "--out", type=Path, help=f"directory for {ESCAPE_FINITE_N} and {DELTA50_FINITE_N_VS_GD}"
    )
    args = parser.parse_args(argv)
    sweep_of = dict(item.partition("=")[::2] for item in args.sweep)
    cells = {}
    for path in args.cells:
        cells.setdefault(path.parent.name, []).append(load_npz(path)[0])
    points = read_csv(args.points)
    rows, delta50 = [], []
    for model, group in sorted(cells.items()):
        sweep = sweep_of.get(model, model)
        rows += cell_rows(model, sweep, group)
        measured = [p for p in points if p["model"] == sweep]
        delta50 += compare_rows(delta50_rows(model, sweep, group, args.seed), measured)
    for r in delta50:
        pred, meas = (
            f"{r[f'delta50_{w}']:.3g} [{r[f'delta50_{w}_low']:.3g}, {r[f'delta50_{w}_high']:.3g}]"
            for w in ("predicted", "measured")
        )
        print(
            f"{r['model']} d={r['d']} {r['reading']} rho_c={r['rho_c']:g}: predicted {pred} (half the sets "
            f"{r['delta50_predicted_half_sets']:.3g}, {r['delta50_predicted_status']}); measured {meas}; "
            + (
                f"gap {r['gap']:+.3g}, {'agrees' if r['agrees'] else 'differs'}"
                if math.isfinite(r["gap"])
                else "no measured delta50 to compare"
            )
        )
    if args.out:
        write_csv(args.out / ESCAPE_FINITE_N, rows)
        write_csv(args.out / DELTA50_FINITE_N_VS_GD, delta50)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
