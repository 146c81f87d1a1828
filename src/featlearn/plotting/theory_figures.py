"""Figures of the theory: DMFT vs simulation (Fig 9), outlier vs GD time and δ_NN(t) (Fig 10).

Every figure is drawn from stored results (``theory_compare.load_theory``): nothing is computed
here beyond reading off thresholds.
"""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np

from featlearn.analysis.theory_tables import delta_nn_curve
from featlearn.analysis.thresholds import FITTED
from featlearn.plotting.figures import binomial_error, shades
from featlearn.plotting.print_size import TEXT_WIDTH_IN as W

matplotlib.use("Agg")  # files only; pyplot, imported above, picks no backend before a figure

TAIL_NOTE = (
    "Bulk edge of the N-path DMFT law = that of a system with n = N samples (extreme-value tail "
    "kept); for unbounded weights (he2) the finite-t threshold therefore depends on N."
)


def _label(name, s):
    return f"{name}: {s.activation}, y={s.link}, $\\eta$={s.lr:g}"


def dmft_vs_simulation_figure(theory, models, n_paths):
    """‖θ‖², train loss and H₁₁ vs t: DMFT (lines, each model's main N from ``n_paths``; the band is
    ±2 standard errors over its path replicas) and simulated restricted GD (seed mean ± s.d.)."""
    names = [n for n in models if theory[n]["sim"]]
    fig, axes = plt.subplots(len(names), 3, figsize=(W, 2.4 * len(names) + 0.4), squeeze=False)
    for row, name in zip(axes, names, strict=True):
        dm = theory[name]["dmft"][n_paths[name]]
        for c, (delta, cell) in enumerate(sorted(theory[name]["sim"].items())):
            i = int(np.nonzero(np.isclose(dm["delta"], delta))[0][0])
            colour = f"C{c}"
            for ax, key in zip(row, ("norm2", "train_loss", "h11"), strict=True):
                ax.plot(dm["steps"], dm[key][i], color=colour, lw=1.2, label=f"$\\delta$={delta:g}")
                if f"{key}_se" in dm:  # ±2 standard errors over the DMFT's path replicas
                    low, high = dm[key][i] - 2 * dm[f"{key}_se"][i], dm[key][i] + 2 * dm[f"{key}_se"][i]
                    ax.fill_between(dm["steps"], low, high, color=colour, alpha=0.2, lw=0)
                ts = cell["steps"]
                ax.errorbar(
                    ts,
                    cell[key].mean(axis=0),
                    yerr=cell[key].std(axis=0),
                    fmt="o",
                    ms=2.5,
                    color=colour,
                    alpha=0.6,
                    errorevery=5,
                    markevery=2,
                )
        for ax, ylabel in zip(row, (r"$\|\theta^t\|^2$", "train loss", r"$H_{11}=E[g^2 w]$"), strict=True):
            ax.set(xlabel="GD step t", ylabel=ylabel)
        d = int(next(iter(theory[name]["sim"].values()))["d"])
        row[0].set_title(
            f"{_label(name, models[name])}: lines DMFT, N={n_paths[name]}; dots simulation, d={d}", loc="left"
        )
        row[1].legend(frameon=False, loc="best")  # one entry per δ (its colour): the train loss has room
    fig.suptitle(
        "restricted GD: DMFT (R replicas of N paths, band $\\pm 2$ s.e.) vs simulation "
        "(seed mean $\\pm$ s.d.)",
        fontsize=10,
    )
    fig.tight_layout()
    return fig


def outlier_vs_time_figure(theory, models, n_paths):
    """Hessian bottom vs t: DMFT bulk edge (dashed) and outlier (solid) over the simulated λ_min
    (filled markers, mean ± s.d. over seeds) and bulk edge (crosses); overlap² on the right."""
    names = [n for n in models if theory[n]["sim"]]
    fig, axes = plt.subplots(len(names), 2, figsize=(W, 2.8 * len(names)), squeeze=False)
    for (ax_l, ax_o), name in zip(axes, names, strict=True):
        dm = theory[name]["dmft"][n_paths[name]]
        cells = sorted(theory[name]["sim"].items())
        shown = cells if len(cells) <= 3 else [cells[0], cells[len(cells) // 2], cells[-1]]
        for c, (delta, cell) in enumerate(shown):
            i = int(np.nonzero(np.isclose(dm["delta"], delta))[0][0])
            colour = f"C{c}"
            ts, st = dm["steps"], cell["spectrum_steps"]
            ax_l.plot(ts, dm["bulk_edge"][i], "--", color=colour, lw=1)
            ax_l.plot(
                ts, dm["outlier"][i], "-", color=colour, lw=1.5, label=f"$\\delta$={delta:g}: DMFT outlier"
            )
            lam = cell["eigenvalues"][:, :, 0]
            ax_l.errorbar(
                st, lam.mean(0), yerr=lam.std(0), fmt="o", color=colour, ms=4, label=r"sim $\lambda_{min}$"
            )
            ax_l.plot(st, cell["bulk_edge"].mean(0), "x", color=colour, ms=6)
            ax_o.plot(ts, dm["overlap2"][i], "-", color=colour, lw=1.5, label=f"$\\delta$={delta:g}: DMFT")
            ov = cell["overlap2"][:, :, 0]
            ax_o.errorbar(st, ov.mean(0), yerr=ov.std(0), fmt="o", color=colour, ms=4, label="sim")
        ax_l.axhline(0, color="k", lw=0.5)
        ax_l.set(xlabel="GD step t", ylabel="eigenvalue", xscale="log")
        ax_l.set_title(
            _label(name, models[name]) + "  (dashed: DMFT bulk edge; x: sim bulk edge)", fontsize=8
        )
        ax_o.set(xlabel="GD step t", ylabel=r"overlap$^2$ with $\theta^*$", xscale="log", ylim=(-0.02, 1.02))
        ax_l.legend(frameon=False)
        ax_o.legend(frameon=False)
    fig.text(0.01, 0.003, TAIL_NOTE, fontsize=7.5, wrap=True)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    return fig


def delta_nn_figure(theory, models, n_paths, table):
    """δ_NN(t) vs t per model for every N, with the long-time (fixed-point) value and δ₅₀ per d, both
    read from ``table`` (the rows of theory_thresholds.csv)."""
    fig, axes = plt.subplots(1, len(models), figsize=(W, 4.4), squeeze=False)
    for ax, (name, s) in zip(axes[0], models.items(), strict=True):
        dms = sorted(theory[name]["dmft"].items())
        for k, (n, dm) in enumerate(dms):
            curve, statuses = delta_nn_curve(dm)
            ok = np.array([st == "ok" for st in statuses])
            ts = dm["steps"]
            main = n == n_paths[name]
            style = "-" if main else ["--", ":", "-."][k % 3]
            ax.plot(ts[ok], curve[ok], style, color="C0", lw=1.5 if main else 1, label=f"DMFT, N={n}")
        row = next(r for r in table if r["model"] == name)
        if row["long_time_status"] == "ok":
            value = row["delta_nn_long_time"]
            note = row["long_time_state"]
            ax.axhline(value, color="C3", ls="-.", lw=1, label=f"RS fixed point: {value:.2f} ({note})")
        for j, key in enumerate(k for k in row if k.startswith("delta50_d") and not k.endswith("_err")):
            if isinstance(row[key], float) and np.isfinite(row[key]):
                ax.axhline(
                    row[key],
                    color="0.5",
                    lw=0.8,
                    ls=["-", "--", ":"][j % 3],
                    label=f"GD $\\delta_{{50}}$, {key[8:]}",
                )
        ax.set(xlabel="GD step t", ylabel=r"$\delta_{NN}(t)$", xscale="log", xlim=(1, dms[0][1]["steps"][-1]))
        ax.set_title(_label(name, s), fontsize=9)
        ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2))  # below: it names much
    fig.tight_layout()  # what δ_NN(t) is, and TAIL_NOTE, are in the manuscript's caption
    return fig


def linear_stage_figure(cells):
    """Var(√d θ₁^t) vs t per (model, δ): the Gaussian process of the DMFT kernels (line), the
    unrestricted runs (dots) and their exact linearisation (crosses); the shaded band is the
    sampling error of a variance over the trials (±2 s.e., normal approximation)."""
    keys = sorted(cells)
    fig, axes = plt.subplots(1, len(keys), figsize=(W, 2.8), squeeze=False)
    for ax, key in zip(axes[0], keys, strict=True):
        cell = cells[key]
        t = cell["steps"]
        theory = np.diag(cell["theory_cov"])
        trials = cell["unrestricted"].shape[0]
        band = 2 * np.sqrt(2 / (trials - 1))
        ax.plot(t, theory, "-", color="C0", label="process (DMFT kernels)")
        ax.fill_between(t, theory * (1 - band), theory * (1 + band), color="C0", alpha=0.15, lw=0)
        ax.plot(t, cell["unrestricted"].var(axis=0, ddof=1), "o", color="k", ms=3, label="unrestricted GD")
        ax.plot(t, cell["linear"].var(axis=0, ddof=1), "x", color="C3", ms=4, label="linearisation")
        ax.set(
            yscale="log",
            xlabel="GD step t",
            title=f"{key[0]}, $\\delta$={key[1]:g}, d={int(cell['d'])}, {trials} runs",
        )
        ax.title.set_fontsize(8)
    axes[0, 0].set_ylabel(r"Var$(\sqrt{d}\,\theta_1^t)$")
    axes[0, 0].legend(frameon=False)
    fig.tight_layout()
    return fig


LEVEL_STYLES = ("-", "--", "-.", ":")
LEVELS = {"rho_c": (r"$\rho_c$", "linear process"), "t0": (r"$t_0$", "two stages")}
"""The free choice of each prediction (its table column) -> (label, what the lines are)."""


def prediction_figure(panels, level="rho_c"):
    """One column per predicted model.  Top: measured success vs δ per d of the sweep (dots,
    binomial errors) and the predicted P(success) (lines, one style per value of the prediction's
    free choice ``level``: ρ_c of the linear process, t₀ of the two stages; the largest solid).
    Bottom: δ₅₀ vs d, measured (fit ± error) and predicted per level, with δ_NN(∞) of the static
    fixed point as the d → ∞ reference."""
    symbol, what = LEVELS[level]
    fig, axes = plt.subplots(3, len(panels), figsize=(W, 7.2), squeeze=False)
    for col, (model, settings, rows, delta50, sweep_rows, fits) in enumerate(panels):
        ax_p, ax_d, ax_s = axes[0, col], axes[1, col], axes[2, col]
        ds = sorted({int(r["d"]) for r in sweep_rows})
        values = sorted({r[level] for r in rows}, reverse=True)
        styles = dict(zip(values, LEVEL_STYLES, strict=False))
        for colour, d in zip(shades(len(ds), "Oranges"), ds, strict=True):
            cells = sorted((r for r in sweep_rows if int(r["d"]) == d), key=lambda r: r["delta"])
            k = np.array([r["successes"] for r in cells], float)
            n = np.array([r["trials"] - r["diverged"] for r in cells], float)
            delta = [r["delta"] for r in cells]
            ax_p.errorbar(
                delta, k / n, binomial_error(k, n), fmt="o", color=colour, ms=4, capsize=2, label=f"d={d}"
            )
            escaped = [r for r in cells if r["escaped"] > 0]
            median = np.array([r["escape_step_median"] for r in escaped])
            spread = [
                median - [r["escape_step_q25"] for r in escaped],
                [r["escape_step_q75"] for r in escaped] - median,
            ]
            ax_s.errorbar(
                [r["delta"] for r in escaped],
                median,
                spread,
                fmt="o",
                color=colour,
                ms=4,
                capsize=2,
                label=f"GD d={d}",
            )
            for value in values:
                pred = sorted(
                    (r for r in rows if r["d"] == d and r[level] == value), key=lambda r: r["delta"]
                )
                for ax, key in ((ax_p, "p_success_predicted"), (ax_s, "escape_step_predicted_median")):
                    ax.plot(
                        [r["delta"] for r in pred],
                        [r[key] for r in pred],
                        styles.get(value, ":"),
                        color=colour,
                    )
        ax_p.set(xlabel=r"$\delta = n/d$", ylabel="success rate", ylim=(-0.05, 1.05))
        ax_p.set_title(
            _label(model, settings)
            + f"\nlines: {what}, "
            + ", ".join(f"'{styles.get(v, ':')}' {symbol}={v:g}" for v in values),
            fontsize=8,
        )
        ax_p.legend(frameon=False)
        for value in values:
            pred = sorted((r for r in delta50 if r[level] == value), key=lambda r: r["d"])
            ax_d.plot(
                [r["d"] for r in pred],
                [r["delta50_predicted"] for r in pred],
                styles.get(value, ":"),
                color="C1",
                label=f"predicted, {symbol}={value:g}",
            )
            limited = [r for r in pred if r.get("horizon_limited") is True]
            ax_d.plot(
                [r["d"] for r in limited],
                [r["delta50_predicted"] for r in limited],
                "o",
                mfc="none",
                color="C1",
                ms=6,
                label="horizon-limited" if value == values[0] and limited else None,
            )
        ok = [f for f in fits if f["status"] in FITTED]
        ax_d.errorbar(
            [f["d"] for f in ok],
            [f["delta50"] for f in ok],
            [f["delta50_err"] for f in ok],
            fmt="o",
            color="k",
            ms=4,
            capsize=2,
            label="GD sweep (logistic fit)",
        )
        limit = delta50[0]["delta_nn_long_time"] if delta50 else float("nan")
        if np.isfinite(limit):
            ax_d.axhline(limit, color="C3", ls=":", label=r"$\delta_{NN}(\infty)$ (fixed point)")
        ax_d.set(xscale="log", xlabel="d", ylabel=r"$\delta_{50}$")
        ticks = sorted({int(r["d"]) for r in delta50})
        ax_d.set_xticks(ticks, [str(t) for t in ticks], fontsize=7.5)
        ax_d.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
        ax_d.legend(frameon=False)
        crossing = r"first crossing of $\rho_c$" if level == "rho_c" else "escape step of the kicked DMFT"
        ax_s.set(
            yscale="log",
            xlabel=r"$\delta = n/d$",
            ylabel="escape step (median, quartiles)",
            title=f"dots: GD, first ρ ≥ escape_rho; lines: predicted median ({crossing})",
        )
        ax_s.title.set_fontsize(8)
        ax_s.legend(frameon=False)
    fig.tight_layout()
    return fig


def design_figure(rows, d, correlation):
    """Left: per design (theory's rank order) δ_NN(∞) of the fixed point (filled: AT-stable) and
    min_t δ_NN(t) of the DMFT ± 2 s.e.; right: GD's δ₅₀ ± 2 s.e. at dimension ``d`` against δ_NN(∞)
    for the swept designs, with Spearman's ρ (``correlation`` = (ρ, p, count))."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(W, 4.6), gridspec_kw={"width_ratios": [1.6, 1]})
    ranked = sorted(rows, key=lambda r: r["theory_rank"])
    x = np.arange(len(ranked))
    inf = np.array([r["delta_nn_inf"] for r in ranked], float)
    stable = np.array([bool(r["at_stable"]) for r in ranked])
    left.scatter(x[stable], inf[stable], color="C0", label=r"$\delta_{NN}(\infty)$ (AT-stable)", zorder=3)
    left.scatter(x[~stable], inf[~stable], facecolor="none", edgecolor="C0", label="(AT fails)", zorder=3)
    low = np.array([r["delta_nn_min"] for r in ranked], float)
    low_se = np.array([r["delta_nn_min_se"] for r in ranked], float)
    left.errorbar(x, low, 2 * low_se, fmt="s", color="C1", ms=4, label=r"$\min_t \delta_{NN}(t)$ (DMFT)")
    left.set_xticks(x, [r["design"] for r in ranked], rotation=45, ha="right", fontsize=8)
    left.set_ylabel(r"$\delta$")
    left.set_title(
        "theory, by rank of $\\delta_{NN}(\\infty)$"
        " (missing: no crossing in the search range, or a trained layer)"
    )
    left.legend(fontsize=8)
    swept = [
        r for r in ranked if np.isfinite(r.get(f"delta50_d{d}", np.nan)) and np.isfinite(r["delta_nn_inf"])
    ]
    for r in swept:
        right.errorbar(r["delta_nn_inf"], r[f"delta50_d{d}"], 2 * r[f"delta50_d{d}_err"], fmt="o", color="C2")
        right.annotate(
            r["design"],
            (r["delta_nn_inf"], r[f"delta50_d{d}"]),
            fontsize=7.5,
            xytext=(3, 3),
            textcoords="offset points",
        )
    if swept:
        top = max(max(r["delta_nn_inf"] for r in swept), max(r[f"delta50_d{d}"] for r in swept)) * 1.1
        right.plot([0, top], [0, top], color="0.7", lw=0.8, label=r"$\delta_{50} = \delta_{NN}(\infty)$")
        right.legend(fontsize=8)
    rho, p, count = correlation
    right.set_title(f"GD at d = {d}: Spearman $\\rho$ = {rho:.2f} (p = {p:.2g}, {count} designs)")
    right.set_xlabel(r"$\delta_{NN}(\infty)$")
    right.set_ylabel(r"GD $\delta_{50}$")
    fig.tight_layout()
    return fig


PLATEAU_LABELS = {
    "norm2": r"$\|\theta\|^2$",
    "train_loss": "training loss",
    "bulk_edge": "bulk edge",
    "lambda_min": r"$\lambda_{\min}$",
    "overlap2": r"overlap$^2$",
}


def plateau_vs_theory_figure(rows):
    """Rows of ``plateau_vs_theory.csv``: per activation (a row of panels) and observable (a
    column), the plateau's seed means ± 1.96 s.e. against 1/d for each δ, the (O19) line
    m_∞ + b/d, and the RS fixed point's value at 1/d = 0 (star)."""
    activations = sorted({r["activation"] for r in rows})
    observables = list(PLATEAU_LABELS)
    fig, axes = plt.subplots(
        len(activations),
        len(observables),
        figsize=(3.0 * len(observables), 2.8 * len(activations)),
        squeeze=False,
    )
    for ax_row, activation in zip(axes, activations, strict=True):
        deltas = sorted({r["delta"] for r in rows if r["activation"] == activation})
        for ax, observable in zip(ax_row, observables, strict=True):
            for j, delta in enumerate(deltas):
                r = next(
                    r
                    for r in rows
                    if r["activation"] == activation and r["delta"] == delta and r["observable"] == observable
                )
                ds = sorted(int(k[1:-5]) for k in r if k.startswith("d") and k.endswith("_mean"))
                x = np.array([1.0 / d for d in ds])
                m = np.array([r[f"d{d}_mean"] for d in ds], float)
                e = np.array([r[f"d{d}_se"] for d in ds], float)
                color = f"C{j % 10}"
                ax.errorbar(x, m, yerr=1.96 * e, fmt="o", ms=3, color=color, label=f"δ={delta:g}")
                if np.isfinite(r["limit"]):
                    grid = np.linspace(0.0, x.max(), 20)
                    ax.plot(grid, r["limit"] + r["slope"] * grid, "--", lw=0.8, color=color)
                ax.plot([0.0], [r["fixed_point"]], "*", ms=9, color=color, mec="k", mew=0.5)
            ax.set(xlabel="1/d", title=f"{activation}: {PLATEAU_LABELS[observable]}")
            ax.tick_params(labelsize=7)
        ax_row[0].legend(fontsize=7.5)
    fig.suptitle("Plateau (points, 1/d law dashed) vs RS fixed point (stars at 1/d = 0)", fontsize=9)
    fig.tight_layout()
    return fig
