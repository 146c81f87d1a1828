"""Theory vs simulation: thresholds, agreement tables and the bounded-link validation (docs/dmft.md,
"What is verified"; docs/outlier.md, eqs. (O9), (O14) and "What is verified").

Theory (``theory``: DMFT and fixed point) and simulation (``theory_sim``) are computed
independently; this module only reads both and compares them.
"""

import re
from pathlib import Path

import numpy as np

from featlearn.analysis.criteria import ALIGNED_OVERLAP2
from featlearn.io.results import load_npz
from featlearn.io.table_names import (
    BOUNDED_LINK_VALIDATION,
    DMFT_VS_SIMULATION,
    FIXED_POINT_REFINEMENT,
    OUTLIER_VS_SIMULATION,
    THEORY_THRESHOLDS,
)
from featlearn.theory.crossing import first_crossing


def load_theory(dmft_files, fixed_point_files, sim_files):
    """{model: {"dmft": {N: arrays}, "fixed_point": arrays, "sim": {δ: arrays}}} from file names
    ``dmft/{model}_N{N}.npz``, ``fixed_point/{model}.npz``, ``sim/{model}/delta{δ}.npz``."""
    out = {}
    for f in dmft_files:
        model, paths = re.fullmatch(r"(.+)_N(\d+)", Path(f).stem).groups()
        out.setdefault(model, {"dmft": {}, "sim": {}})["dmft"][int(paths)] = load_npz(f)[0]
    for f in fixed_point_files:
        out[Path(f).stem]["fixed_point"] = load_npz(f)[0]
    for f in sim_files:
        cell = load_npz(f)[0]
        out[Path(f).parent.name]["sim"][float(cell["delta"])] = cell
    return out


def delta_nn_replicas(dm):
    """δ_NN(t) of every replica of a DMFT model file (first zero in δ of that replica's margin;
    docs/outlier.md, eq. (O9)) and their statuses, both [replica, t]; a file without replicas is
    one replica."""
    margins = dm["margin_replicas"] if "margin_replicas" in dm else dm["margin"][None]
    pairs = [[first_crossing(dm["delta"], m[:, t]) for t in range(dm["steps"].size)] for m in margins]
    return np.array([[p[0] for p in row] for row in pairs]), [[p[1] for p in row] for row in pairs]


def delta_nn_curve(dm):
    """δ_NN(t) and its status for every t: the mean over the replicas, "ok" where every replica
    has a crossing (else the first replica's failing status)."""
    values, statuses = delta_nn_replicas(dm)
    per_t = list(zip(*statuses, strict=True))
    status = [next((s for s in column if s != "ok"), "ok") for column in per_t]
    return values.mean(axis=0), status


def delta_nn_se(dm):
    """The Monte-Carlo standard error of δ_NN(t) over the replicas, sd/√R (NaN for one replica)."""
    values, _ = delta_nn_replicas(dm)
    if values.shape[0] < 2:
        return np.full(values.shape[1], np.nan)
    return values.std(axis=0, ddof=1) / np.sqrt(values.shape[0])


def minimum_over_time(curve, se, statuses):
    """(min δ_NN(t), its standard error, the t reaching it) over 1 ≤ t ≤ T among the t where every
    replica has a crossing; (NaN, NaN, −1) where none has."""
    ok = np.array([st == "ok" for st in statuses]) & (np.arange(curve.size) >= 1)
    if not ok.any():
        return np.nan, np.nan, -1
    best = int(np.nanargmin(np.where(ok, curve, np.nan)))
    return curve[best], se[best], best


def long_time_threshold(fp):
    """(δ_NN(∞), status, AT-stable at the root) of a fixed-point model file, as its job found them
    (``theory.delta_nn.long_time_threshold``, the designer's root-finder)."""
    return float(fp["delta_nn_inf"]), str(fp["delta_nn_inf_status"]), bool(fp["delta_nn_inf_at"] < 1.0)


HARD_EDGE = 1e-6
"""|bulk edge| below which the RS state's Hessian bulk reaches 0 (the law's w reaches −1/κ at a cusp
of the prox, docs/outlier.md (O18a)): marginal."""


def rs_state(fp):
    """What the refinement study (``refine_*`` keys of a fixed-point model file) says of δ_NN(∞)
    (docs/outlier.md, "Numerical error" and "Which state"): its numerical error |δ(L + 1) − δ(L)|,
    the AT value at the finer level with its own change, and the state: ``AT-unstable`` (AT − ΔAT >
    1), ``marginal`` (AT + ΔAT < 1 and a bulk edge at 0), ``AT-stable`` (AT + ΔAT < 1, edge > 0),
    else ``AT undetermined``; ``no root`` without a refinement."""
    if "refine_level" not in fp:
        return {"numerical_error": np.nan, "at_value": np.nan, "at_error": np.nan, "state": "no root"}
    roots, at, edge = fp["refine_delta_nn_inf"], fp["refine_at_value"], fp["refine_bulk_edge"]
    at_error = abs(at[-1] - at[-2])
    if at[-1] - at_error > 1.0:
        state = "AT-unstable"
    elif at[-1] + at_error < 1.0:
        state = "marginal" if abs(edge[-1]) < HARD_EDGE else "AT-stable"
    else:
        state = "AT undetermined"
    return {
        "numerical_error": abs(roots[-1] - roots[-2]),
        "at_value": float(at[-1]),
        "at_error": float(at_error),
        "state": state,
    }


def refinement_rows(theory):
    """The refinement study of every theory model's δ_NN(∞) (docs/outlier.md, "Numerical error"):
    one row per model and quadrature level, the root and the state at the reference δ."""
    rows = []
    for name, th in sorted(theory.items()):
        fp = th["fixed_point"]
        if "refine_level" not in fp:
            continue
        for i, level in enumerate(fp["refine_level"]):
            row = {"model": name, "level": int(level), "delta_ref": float(fp["refine_delta"])}
            keys = [k for k in fp if k.startswith("refine_") and k not in ("refine_level", "refine_delta")]
            rows.append(row | {k[len("refine_") :]: float(fp[k][i]) for k in keys})
    return rows


def _row_index(dm, delta):
    i = np.nonzero(np.isclose(dm["delta"], delta))[0]
    if i.size == 0:
        raise ValueError(f"delta={delta} is simulated but not on the DMFT grid {dm['delta']}")
    return int(i[0])


def trajectory_agreement(model, dm, cell, t_max=50):
    """Largest DMFT-vs-simulation differences over 1 ≤ t ≤ t_max (seed means; seed s.d. beside),
    with the combined standard error of that difference at the same t: the DMFT's replica s.e.
    (``<key>_se``) and the seed mean's, √(se_DMFT² + sd²/seeds)."""
    i = _row_index(dm, cell["delta"])
    ts = np.arange(1, min(t_max, dm["steps"][-1], cell["steps"][-1]) + 1)
    row = {
        "model": model,
        "d": int(cell["d"]),
        "delta": float(cell["delta"]),
        "seeds": cell["norm2"].shape[0],
    }
    row["t_max"] = int(ts[-1])
    for key, relative in (("norm2", True), ("train_loss", True), ("h11", False)):
        sim = cell[key][:, ts]
        mean, sd = sim.mean(axis=0), sim.std(axis=0, ddof=1) if sim.shape[0] > 1 else np.zeros(ts.size)
        diff = dm[key][i, ts] - mean
        # combined standard error of the difference: the DMFT's replica s.e. and the seed mean's
        dmft_se = np.nan_to_num(dm[f"{key}_se"][i, ts]) if f"{key}_se" in dm else np.zeros(ts.size)
        combined = np.sqrt(dmft_se**2 + sd**2 / sim.shape[0])
        scale = np.abs(mean) if relative else np.ones(ts.size)
        worst = int(np.argmax(np.abs(diff) / scale))
        suffix = "rel" if relative else "abs"
        row[f"{key}_max_err_{suffix}"] = float(np.abs(diff[worst]) / scale[worst])
        row[f"{key}_err_se_{suffix}"] = float(combined[worst] / scale[worst])
        row[f"{key}_dmft_se_{suffix}"] = float(dmft_se[worst] / scale[worst])
        row[f"{key}_worst_t"] = int(ts[worst])
        row[f"{key}_seed_sd_{suffix}"] = float(sd[worst] / scale[worst])
    return row


def outlier_agreement(model, dm, cell):
    """Per spectrum step: DMFT bulk edge/outlier/overlap² vs the simulated bottom eigenpair, with
    the errors where the DMFT law has an outlier (NaN otherwise)."""
    i = _row_index(dm, cell["delta"])
    rows = []
    for j, t in enumerate(cell["spectrum_steps"]):
        lam, ov = cell["eigenvalues"][:, j, 0], cell["overlap2"][:, j, 0]
        outlier, overlap2 = float(dm["outlier"][i, t]), float(dm["overlap2"][i, t])
        exists = bool(np.isfinite(outlier))
        err = abs(outlier - lam.mean()) if exists else np.nan
        rows.append(
            {
                "model": model,
                "d": int(cell["d"]),
                "delta": float(cell["delta"]),
                "t": int(t),
                "dmft_bulk_edge": float(dm["bulk_edge"][i, t]),
                "dmft_outlier": outlier,
                "dmft_overlap2": overlap2,
                "sim_lambda_min": float(lam.mean()),
                "sim_lambda_min_sd": float(lam.std()),
                "sim_overlap2": float(ov.mean()),
                "sim_overlap2_sd": float(ov.std()),
                "sim_bulk_edge": float(cell["bulk_edge"][:, j].mean()),
                "semi_empirical_outlier": float(np.nanmean(cell["semi_empirical_outlier"][:, j])),
                "outlier_exists": exists,
                "lambda_err_abs": err,
                "lambda_err_rel": err / abs(lam.mean()) if exists else np.nan,
                "overlap2_err": abs(overlap2 - ov.mean()) if exists else np.nan,
            }
        )
    return rows


def simulated_crossing(cells, step):
    """First δ (ascending) at which the seed-mean bottom eigenvalue at ``step`` is negative with an
    aligned eigenvector (mean overlap² ≥ ``ALIGNED_OVERLAP2``), by linear interpolation from the δ
    below (where an unaligned bottom eigenvalue counts as |λ_min|, i.e. as no negative aligned
    outlier)."""
    deltas = sorted(cells)
    lam, ov = [], []
    for dl in deltas:
        j = int(np.nonzero(cells[dl]["spectrum_steps"] == step)[0][0])
        lam.append(cells[dl]["eigenvalues"][:, j, 0].mean())
        ov.append(cells[dl]["overlap2"][:, j, 0].mean())
    lam, ov = np.array(lam), np.array(ov)
    margin = np.where(ov >= ALIGNED_OVERLAP2, lam, np.abs(lam) + 1e-12)
    value, status = first_crossing(deltas, margin)
    return value, status, np.array(deltas), lam, ov


def validation_row(model, dm, cells, step):
    """Bounded link: δ at which simulation first shows the negative aligned outlier at ``step`` vs
    δ_NN(step) from the DMFT law."""
    curve, statuses = delta_nn_curve(dm)
    sim_value, sim_status, deltas, lam, ov = simulated_crossing(cells, step)
    theory = float(curve[step])
    return {
        "model": model,
        "step": int(step),
        "d": int(next(iter(cells.values()))["d"]),
        "delta_nn_theory": theory,
        "theory_status": statuses[step],
        "delta_sim": sim_value,
        "sim_status": sim_status,
        "rel_diff": abs(sim_value - theory) / theory,
        "sim_deltas": " ".join(f"{d:g}" for d in deltas),
        "sim_lambda_min": " ".join(f"{v:.4f}" for v in lam),
        "sim_overlap2": " ".join(f"{v:.3f}" for v in ov),
    }


def threshold_rows(models, theory, n_paths, report_steps, empirical):
    """One row per model (``n_paths``: model → main N): δ_alg, δ_NN(t) for the reported t (main N
    and every other N), its minimum over 1 ≤ t ≤ T with the t where it is reached (the δ above
    which a negative aligned outlier appears at SOME time of the horizon), the long-time δ_NN with
    its AT status, and the empirical δ₅₀ per d of the matching m = 1 sweeps."""
    alg = {r["link"]: r["threshold"] for r in empirical if r["kind"] == "delta_alg_spectral_theory"}
    rows = []
    for name, s in models.items():
        row = {
            "model": name,
            "activation": s.activation,
            "link": s.link,
            "lr": s.lr,
            "n_paths": n_paths[name],
        }
        row["delta_alg"] = alg.get(s.link, np.nan)
        for n, dm in sorted(theory[name]["dmft"].items(), key=lambda kv: (kv[0] != n_paths[name], kv[0])):
            curve, statuses = delta_nn_curve(dm)
            se = delta_nn_se(dm)
            suffix = "" if n == n_paths[name] else f"_N{n}"
            row[f"replicas{suffix}"] = int(dm.get("replicas", 1))
            for t in report_steps:
                row[f"delta_nn_t{t}{suffix}"] = curve[t] if statuses[t] == "ok" else np.nan
                row[f"delta_nn_t{t}{suffix}_se"] = se[t] if statuses[t] == "ok" else np.nan
                row[f"delta_nn_t{t}{suffix}_status"] = statuses[t]
            best = minimum_over_time(curve, se, statuses)
            keys = ("delta_nn_min", "delta_nn_min_se", "delta_nn_argmin_t")
            for key, value in zip(keys, best, strict=True):
                row[f"{key}{suffix}"] = value
        value, status, stable = long_time_threshold(theory[name]["fixed_point"])
        row["delta_nn_long_time"] = value
        row["long_time_status"] = status
        row["long_time_at_stable"] = stable
        state = rs_state(theory[name]["fixed_point"])
        row["long_time_numerical_error"] = state["numerical_error"]
        row["long_time_at_value"] = state["at_value"]
        row["long_time_at_error"] = state["at_error"]
        row["long_time_state"] = state["state"]
        for r in empirical:
            same = (r["activation"], r["link"]) == (s.activation, s.link)
            if r["kind"] == "delta50_gd_empirical" and same and r["m"] == 1 and r["init"] == "random":
                row[f"delta50_d{int(r['d'])}"] = r["threshold"]
                row[f"delta50_d{int(r['d'])}_err"] = r["threshold_err"]
        rows.append(row)
    return rows


def latex_table(rows, report_steps):
    """The threshold table as a LaTeX tabular (main N only)."""
    ds = sorted({int(k[len("delta50_d") :]) for r in rows for k in r if re.fullmatch(r"delta50_d\d+", k)})
    head = (
        ["model", "$N$", r"$\delta_{\rm alg}$"]
        + [rf"$\delta_{{\rm NN}}({t})$" for t in report_steps]
        + [r"$\min_t \delta_{\rm NN}(t)$", r"$\delta_{\rm NN}(\infty)$"]
        + [rf"$\delta_{{50}}$, $d={d}$" for d in ds]
    )

    def num(v, err=None):
        if v is None or not np.isfinite(v):
            return "--"
        return f"{v:.2f}" if err is None or not np.isfinite(err) else f"{v:.2f}$\\pm${err:.2f}"

    lines = [
        r"\begin{tabular}{" + "l" * 1 + "r" * (len(head) - 1) + "}",
        r"\hline",
        " & ".join(head) + r" \\",
        r"\hline",
    ]
    for r in rows:
        flag = "" if r["long_time_state"] in ("AT-stable", "marginal") else "$^\\dagger$"
        long_time = num(r["delta_nn_long_time"], r["long_time_numerical_error"]) + flag
        cells = (
            [f"{r['activation']}, {r['link']}".replace("_", r"\_"), str(r["n_paths"]), num(r["delta_alg"])]
            + [num(r[f"delta_nn_t{t}"]) for t in report_steps]
            + [f"{num(r['delta_nn_min'])} ($t={r['delta_nn_argmin_t']}$)", long_time]
            + [num(r.get(f"delta50_d{d}"), r.get(f"delta50_d{d}_err")) for d in ds]
        )
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\hline", r"\end{tabular}"]
    note = (
        "% delta_NN(t): DMFT law with N paths (first zero of the outlier margin on the"
        " delta grid); -- : none on the grid or already below it;"
        " delta_NN(inf) +- its numerical error (quadrature refined once);"
        " $^\\dagger$: the RS fixed point fails its AT check (or it is undetermined), or no crossing."
    )
    return "\n".join([note, *lines]) + "\n"


def theory_tables(models, theory, n_paths, report_steps, horizon, validation, empirical):
    """Every theory table, by file name: the thresholds (CSV rows and LaTeX), DMFT vs simulation,
    outlier vs simulation, and the bounded-link validation row.

    ``models``: name → its dmft_model settings; ``theory``: :func:`load_theory`; ``n_paths``:
    name → main N; ``validation``: {model, step}; ``empirical``: rows of the threshold table.
    """
    rows = threshold_rows(models, theory, n_paths, report_steps, empirical)
    agreement, outliers = [], []
    for name, th in theory.items():
        dm = th["dmft"][n_paths[name]]
        for cell in th["sim"].values():
            agreement.append(trajectory_agreement(name, dm, cell, horizon))
            outliers += outlier_agreement(name, dm, cell)
    model = validation["model"]
    check = validation_row(
        model, theory[model]["dmft"][n_paths[model]], theory[model]["sim"], validation["step"]
    )
    return {
        THEORY_THRESHOLDS: rows,
        "theory_thresholds.tex": latex_table(rows, report_steps),
        DMFT_VS_SIMULATION: agreement,
        OUTLIER_VS_SIMULATION: outliers,
        BOUNDED_LINK_VALIDATION: [check],
        FIXED_POINT_REFINEMENT: refinement_rows(theory),
    }
