"""Figure helpers: every figure is drawn from stored result tables/arrays, never recomputed here."""

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib import ticker

from featlearn.analysis.criteria import ALIGNED_OVERLAP2, negative_aligned
from featlearn.analysis.thresholds import FITTED, logistic
from featlearn.plotting import print_size

matplotlib.use("Agg")  # files only; pyplot, imported above, picks no backend before a figure
plt.rcParams.update(print_size.STYLE)
W = print_size.TEXT_WIDTH_IN


def shades(n, cmap="Blues"):
    """n colours from light to dark (small → large d)."""
    return plt.get_cmap(cmap)(np.linspace(0.4, 0.95, n)) if n > 1 else plt.get_cmap(cmap)([0.8])


def binomial_error(k, n):
    """1-σ binomial standard error of the success fraction k/n."""
    p = k / n
    return np.sqrt(p * (1 - p) / n)


def save(fig, stem_paths):
    """Save one figure to every path given (PDF and PNG), without a creation date, so that the same
    figure always has the same bytes; the PNG records its smallest drawn text (``print_size``)."""
    record = print_size.text_record(fig)
    for path in stem_paths:
        metadata = {"CreationDate": None} if str(path).endswith(".pdf") else record
        fig.savefig(path, dpi=print_size.DPI, bbox_inches="tight", metadata=metadata)
    plt.close(fig)


def _rows_by_d(cells):
    ds = sorted({int(c["d"]) for c in cells})
    return [(d, sorted((c for c in cells if int(c["d"]) == d), key=lambda c: c["delta"])) for d in ds]


def _median_band(ax, rows, keys, colour, label):
    """A median vs δ with its quantile band as error bars; ``keys`` = (median, lower, upper)."""
    delta = np.array([r["delta"] for r in rows])
    med, lo, hi = (np.array([r[key] for r in rows]) for key in keys)
    ax.errorbar(delta, med, [med - lo, hi - med], fmt="o-", color=colour, ms=4, capsize=2, label=label)


def success_panel(ax, cells, fits, cmap="Blues", label="", colour=None):
    """Success rate vs δ per d: dots, binomial errors, logistic fit (light → dark = small → large d)."""
    by_d = _rows_by_d(cells)
    colours = [colour] * len(by_d) if colour is not None else shades(len(by_d), cmap)
    for shade, (d, rows) in zip(colours, by_d, strict=True):
        delta = np.array([c["delta"] for c in rows])
        k = np.array([c["successes"] for c in rows], dtype=float)
        n = np.array([c["trials"] - c["diverged"] for c in rows], dtype=float)
        ax.errorbar(
            delta, k / n, binomial_error(k, n), fmt="o", color=shade, ms=4, capsize=2, label=f"{label}d={d}"
        )
        fit = next((f for f in fits if int(f["d"]) == d), None)
        if fit is not None and fit["status"] in FITTED:
            grid = np.linspace(delta.min(), delta.max(), 200)
            ax.plot(grid, logistic(grid, fit["delta50"], fit["scale"]), color=shade, lw=1.2)
    ax.set(xlabel=r"$\delta = n/d$", ylabel="success rate", ylim=(-0.05, 1.05))


def prediction_overlay(ax_p, ax_r, prediction, ds, colours, draw_limit=True):
    """The theory's prediction on a phase figure, per d of the sweep (``prediction``: the sweep's
    rows of ``escape_prediction.csv`` and ``delta50_prediction.csv`` at the largest ρ_c, the upper
    end of the referee's range).  Success panel: the predicted P(success) (dashed) and the predicted
    δ₅₀ (dash-dot, the "predicted threshold"), with δ_NN(∞) of the static fixed point (dotted) as the
    d → ∞ limit.  ρ panel (if given): the predicted final ρ of the failed trials (median line,
    30–70 % band).  ``draw_limit``: whether to draw δ_NN(∞) (not when the figure's threshold lines
    already do)."""
    rows, delta50 = prediction
    for colour, d in zip(colours, ds, strict=True):
        pred = sorted((r for r in rows if int(r["d"]) == d), key=lambda r: r["delta"])
        if not pred:
            continue
        delta = np.array([r["delta"] for r in pred])
        ax_p.plot(delta, [r["p_success_predicted"] for r in pred], "--", color=colour, lw=1)
        threshold = next((r["delta50_predicted"] for r in delta50 if int(r["d"]) == d), np.nan)
        if np.isfinite(threshold):
            ax_p.axvline(threshold, color=colour, ls="-.", lw=1)
        if ax_r is not None:
            median = np.array([r["rho_failed_predicted_median"] for r in pred])
            lo, hi = (
                np.array([r[k] for r in pred])
                for k in ("rho_failed_predicted_q30", "rho_failed_predicted_q70")
            )
            ax_r.plot(delta, median, "--", color=colour, lw=1)
            ax_r.fill_between(delta, lo, hi, color=colour, alpha=0.15, lw=0)
    limit = delta50[0]["delta_nn_long_time"] if delta50 and draw_limit else np.nan
    if np.isfinite(limit):
        ax_p.axvline(limit, color="C3", ls=":", lw=1.2, label=r"$\delta_{NN}(\infty)$ ($d\to\infty$)")
    rho_c = rows[0]["rho_c"] if rows else np.nan
    ax_p.plot([], [], "k--", lw=1, label=f"predicted (linear process, $\\rho_c$={rho_c:g})")
    ax_p.plot([], [], "k-.", lw=1, label="predicted threshold")


def prediction_of(prediction_rows, delta50_rows, sweep):
    """A sweep's prediction rows at the largest ρ_c (``prediction_overlay``), or None."""
    rows = [r for r in prediction_rows if r["sweep"] == sweep]
    if not rows:
        return None
    rho_c = max(r["rho_c"] for r in rows)
    return (
        [r for r in rows if r["rho_c"] == rho_c],
        [r for r in delta50_rows if r["sweep"] == sweep and r["rho_c"] == rho_c],
    )


def _draw_threshold_lines(ax, lines, colour_of_d):
    """The lines of ``analysis.threshold_lines.threshold_lines``: one vertical line each, or one per d
    (in that d's colour) for a per-d line; returns one legend handle per line."""
    handles = []
    for _, label, x, style, _ in lines:
        if isinstance(x, dict):
            for d, value in x.items():
                if np.isfinite(value) and d in colour_of_d:
                    ax.axvline(value, color=colour_of_d[d], **style)
            handles.append(ax.plot([], [], color="k", label=label, **style)[0])
        else:
            handles.append(ax.axvline(x, label=label, **style))
    return handles


def phase_figure(cells, fits, title, cmap="Blues", prediction=None, lines=()):
    """Left: success rate vs δ per d (dots, binomial errors, logistic fit). Right: final ρ median,
    30–70 %.  With a ``prediction`` (``prediction_of``), the theory's lines on both panels
    (``prediction_overlay``); ``lines`` (``analysis.threshold_lines``): vertical threshold lines on the
    success panel, each named in the legend below the panels.  Sized for the page (7.2 in wide, text
    ≥ 8 pt, so ≥ 7 pt printed at the manuscript's 6.5 in text width)."""
    fig, (ax_p, ax_r) = plt.subplots(1, 2, figsize=(7.2, 3.7 if lines else 3.1))
    success_panel(ax_p, cells, fits, cmap)
    by_d = _rows_by_d(cells)
    colours = shades(len(by_d), cmap)
    for colour, (d, rows) in zip(colours, by_d, strict=True):
        _median_band(ax_r, rows, ("rho_median", "rho_q30", "rho_q70"), colour, f"d={d}")
    if prediction is not None:
        drawn_elsewhere = any(key == "rs_long_time" for key, *_ in lines)  # the same δ_NN(∞) line
        prediction_overlay(ax_p, ax_r, prediction, [d for d, _ in by_d], colours, not drawn_elsewhere)
        ax_r.plot([], [], "k--", lw=1, label="predicted, failed trials")
    ax_p.set(title=title)
    ax_r.set(xlabel=r"$\delta = n/d$", ylabel=r"final $\rho$ (median, 30–70%)", ylim=(-0.02, 1.02))
    if lines:
        drawn = _draw_threshold_lines(ax_p, lines, {d: c for c, (d, _) in zip(colours, by_d, strict=True)})
        fig.legend(handles=drawn, loc="lower center", ncol=2, fontsize=8, frameon=False)
        handles, labels = ax_p.get_legend_handles_labels()
        kept = [(h, lab) for h, lab in zip(handles, labels, strict=True) if h not in drawn]
        ax_p.legend(*zip(*kept, strict=True), frameon=False, fontsize=8, loc="upper left")
    else:
        ax_p.legend(frameon=False, fontsize=8, loc="upper left")
    ax_r.legend(frameon=False, fontsize=8)
    for ax in (ax_p, ax_r):
        ax.tick_params(labelsize=8)
        ax.xaxis.label.set_size(9)
        ax.yaxis.label.set_size(9)
        ax.title.set_size(9)
    fig.tight_layout(rect=(0, 0.15 if lines else 0, 1, 1))
    return fig


def spectral_figure(random, spectral_init, overlaps, theory, delta_alg, title, prediction=None):
    """Fig 1. Left: GD success from random (blue) and spectral (orange) init, with δ_alg and the
    empirical GD thresholds of the largest d, and the theory's prediction for the random family
    (``prediction_overlay``). Right: spectral-estimator overlap vs δ, simulation
    (median, 30–70 %) against the asymptotic curve."""
    fig, (ax_p, ax_o) = plt.subplots(1, 2, figsize=(W, 4.0))
    for (cells, fits), cmap, label in (
        (random, "Blues", "random, "),
        (spectral_init, "Oranges", "spectral, "),
    ):
        success_panel(ax_p, cells, fits, cmap, label)
        if prediction is not None and cmap == "Blues":
            ds = [d for d, _ in _rows_by_d(cells)]
            prediction_overlay(ax_p, None, prediction, ds, shades(len(ds), cmap))
        good = [f for f in fits if f["status"] in FITTED]
        if good:
            top = max(good, key=lambda f: f["d"])
            colour = plt.get_cmap(cmap)(0.9)
            ax_p.axvline(
                top["delta50"],
                color=colour,
                ls=":",
                lw=1,
                label=f"{label}$\\delta_{{50}}$ (d={int(top['d'])})",
            )
    for ax in (ax_p, ax_o):
        ax.axvline(delta_alg, color="k", ls="--", lw=1, label=r"$\delta_{alg}$")
    ax_p.set(title=title, xlim=(0, None))
    ax_p.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=2)  # off the data
    ax_o.plot(
        [r["delta"] for r in theory], [r["overlap"] for r in theory], "k-", lw=1.2, label="asymptotic (Lu–Li)"
    )
    by_d = _rows_by_d(overlaps)
    for colour, (d, rows) in zip(shades(len(by_d), "Greens"), by_d, strict=True):
        deltas = sorted({r["delta"] for r in rows})
        q = np.array(
            [np.percentile([r["overlap"] for r in rows if r["delta"] == dl], [30, 50, 70]) for dl in deltas]
        )
        ax_o.errorbar(
            deltas,
            q[:, 1],
            [q[:, 1] - q[:, 0], q[:, 2] - q[:, 1]],
            fmt="o",
            color=colour,
            ms=4,
            capsize=2,
            label=f"simulation d={d}",
        )
    ax_o.set(
        xlabel=r"$\delta = n/d$",
        ylabel=r"overlap $|\langle \hat v, \theta^*\rangle|$",
        ylim=(-0.02, 1.02),
        title="optimal spectral estimator (no GD)",
    )
    ax_o.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def grokking_figure(traj, title):
    """Train loss, test loss (the exact population risk; the sampled one as a faint check) and
    misalignment 1 − ρ vs GD step (log axis)."""
    steps = traj["steps"] + 1
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ax.plot(steps, traj["train_loss"], label="train loss")
    ax.plot(steps, traj["test_loss"], label="test loss (population)")
    ax.plot(steps, traj["sampled_test_loss"], color="C1", alpha=0.35, lw=0.8, label="test loss (sampled)")
    ax.plot(steps, 1 - traj["rho"], label=r"$1-\rho$")
    ax.set(xscale="log", yscale="log", xlabel="GD step + 1", title=title)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig


def hessian_spectrum_figure(panels):
    """Bulk histograms at the plateau with the smallest eigenvalue marked.

    ``panels``: list of (title, bulk eigenvalues, λ_min, overlap² of its eigenvector, bulk edge).
    """
    cols = 2 if len(panels) % 2 == 0 and len(panels) % 3 else min(len(panels), 3)  # 4 panels: 2 × 2
    rows = -(-len(panels) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(W, 2.4 * rows), squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (title, bulk, lam, ov2, edge) in zip(axes.flat, panels, strict=False):
        ax.hist(bulk, bins=60, density=True, color="0.7")
        colour = "C3" if negative_aligned(lam, ov2) else "C0"  # red: a negative eigenvalue aligned with θ*
        ax.axvline(lam, color=colour, lw=1.5, label=rf"$\lambda_{{min}}$={lam:.3g}, overlap$^2$={ov2:.2f}")
        ax.axvline(edge, color="0.3", ls="--", lw=0.8, label=f"bulk edge {edge:.3g}")
        ax.axvline(0, color="k", lw=0.5)
        ax.set(title=title, xlabel="eigenvalue", yticks=[])
        ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.22))
    fig.tight_layout()
    return fig


def hessian_delta_figure(tables, fixed_points=None):
    """λ_min and bulk edge (left) and overlap² of the bottom eigenvector (right) vs δ, per activation.

    ``tables``: {activation: rows of the hessian table (one per seed)}; ``fixed_points``:
    {activation: arrays of ``theory.fixed_point_model``}, drawn as lines (outlier solid, bulk edge
    dashed; grey dots where the fixed point fails its AT check).
    """
    fig, (ax_l, ax_o) = plt.subplots(1, 2, figsize=(W, 4.8))
    for i, (act, rows) in enumerate(sorted(tables.items())):
        colour = f"C{i}"
        fp = (fixed_points or {}).get(act)
        if fp is not None:
            order = np.argsort(fp["delta"])
            dl = fp["delta"][order]
            ax_l.plot(dl, fp["outlier"][order], "-", color=colour, lw=1, label=f"{act}: fixed-point outlier")
            ax_l.plot(
                dl, fp["bulk_edge"][order], "--", color=colour, lw=0.8, label=f"{act}: fixed-point bulk edge"
            )
            ax_o.plot(dl, fp["overlap2"][order], "-", color=colour, lw=1, label=f"{act}: fixed point")
            unstable = fp["at_value"][order] >= 1
            ax_l.plot(dl[unstable], fp["bulk_edge"][order][unstable], ".", color="0.5", ms=6)
        delta = np.array([r["delta"] for r in rows])
        ax_l.plot(
            delta,
            [r["lambda_min"] for r in rows],
            "o",
            color=colour,
            ms=4,
            label=rf"{act}: $\lambda_{{min}}$",
        )
        ax_l.plot(delta, [r["bulk_edge"] for r in rows], "x", color=colour, ms=5, label=f"{act}: bulk edge")
        equations = dict(
            marker="s", ls="none", mfc="none", color=colour, ms=7, label=f"{act}: outlier eq. (empirical law)"
        )
        ax_l.plot(delta, [r["semi_empirical_outlier"] for r in rows], **equations)
        ax_o.plot(delta, [r["overlap2"] for r in rows], "o", color=colour, ms=4, label=act)
        ax_o.plot(delta, [r["semi_empirical_overlap2"] for r in rows], **equations)
    ax_l.axhline(0, color="k", lw=0.5)
    ax_l.set(xlabel=r"$\delta$", ylabel="eigenvalue", xscale="log", title="restricted GD plateau")
    ax_o.axhline(ALIGNED_OVERLAP2, color="k", lw=0.5, ls=":")
    ax_o.set(
        xlabel=r"$\delta$",
        ylabel=r"overlap$^2$ of $v_{\min}$ with $\theta^*$",
        xscale="log",
        ylim=(-0.02, 1.02),
    )
    for ax in (ax_l, ax_o):  # plain numbers on the log δ axis (the default 2×10⁰, … labels collide)
        ax.xaxis.set_major_formatter(ticker.ScalarFormatter())
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_xticks([2, 4, 8, 16, 32])
    for ax in (ax_l, ax_o):  # the legends below the panels: they name more than the panels can hold
        ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.2), ncol=1)
    fig.tight_layout()
    return fig


def sweep_escape_steps_figure(sweeps):
    """Escape step (first step with ρ ≥ 1/2) vs δ: median and quartiles over escaped trials, per d.

    ``sweeps``: {name: cell rows}.
    """
    fig, axes = plt.subplots(1, len(sweeps), figsize=(W, 3.0), squeeze=False)
    for ax, (name, cells) in zip(axes[0], sorted(sweeps.items()), strict=True):
        by_d = _rows_by_d(cells)
        for colour, (d, rows) in zip(shades(len(by_d)), by_d, strict=True):
            rows = [r for r in rows if r["escaped"] > 0]
            if not rows:
                continue
            _median_band(
                ax, rows, ("escape_step_median", "escape_step_q25", "escape_step_q75"), colour, f"d={d}"
            )
        ax.set(xlabel=r"$\delta$", ylabel="escape step (median, 25–75 %)", yscale="log", title=name)
        ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def hessian_trajectory_figure(runs):
    """Along restricted GD (seed 0 of each δ): λ_min (solid) and bulk edge (dashed) vs step.

    ``runs``: {activation: [(δ, steps, λ_min(t), bulk edge(t), overlap²(t)), ...]}.
    """
    fig, axes = plt.subplots(2, len(runs), figsize=(W, 4.8), squeeze=False, sharex="col")
    for col, (act, series) in enumerate(sorted(runs.items())):
        ax_l, ax_o = axes[0, col], axes[1, col]
        colours = shades(len(series), "viridis")
        for colour, (delta, steps, lam, edge, ov2) in zip(
            colours, sorted(series, key=lambda s: s[0]), strict=True
        ):
            ok = np.isfinite(lam)
            ax_l.plot(steps[ok] + 1, lam[ok], "-", color=colour, label=rf"$\delta$={delta:g}")
            ax_l.plot(steps[ok] + 1, edge[ok], "--", color=colour, lw=0.8)
            ax_o.plot(steps[ok] + 1, ov2[ok], "-", color=colour)
        ax_l.axhline(0, color="k", lw=0.5)
        ax_l.set(
            xscale="log", ylabel=r"$\lambda_{min}$ (solid), bulk edge (dashed)", title=f"{act}: restricted GD"
        )
        ax_o.set(
            xscale="log",
            xlabel="GD step + 1",
            ylabel=r"overlap$^2$ of bottom eigenvector",
            ylim=(-0.02, 1.02),
        )
        ax_l.legend(frameon=False)
    fig.tight_layout()
    return fig


def width_figure(groups):
    """Top: success rate vs δ per width m at the largest d common to all widths (else each sweep's
    largest d). Bottom: fitted δ₅₀ vs m.

    ``groups``: {activation: [(m, cell rows, fit rows), ...]}.
    """
    fig, axes = plt.subplots(2, len(groups), figsize=(W, 5.2), squeeze=False)
    for col, (act, series) in enumerate(sorted(groups.items())):
        ax_p, ax_t = axes[0, col], axes[1, col]
        series = sorted(series, key=lambda s: s[0])
        widths, d50, err = [], [], []
        common = set.intersection(*({int(c["d"]) for c in cells} for _, cells, _ in series))
        for colour, (m, cells, fits) in zip(shades(len(series), "Purples"), series, strict=True):
            d = max(common) if common else max(int(c["d"]) for c in cells)
            largest = [c for c in cells if int(c["d"]) == d]
            success_panel(
                ax_p, largest, [f for f in fits if int(f["d"]) == d], label=f"m={m}, ", colour=colour
            )
            fit = next((f for f in fits if int(f["d"]) == d), None)
            if fit is not None and fit["status"] in FITTED:
                widths.append(m)
                d50.append(fit["delta50"])
                err.append(fit["delta50_err"])
        ax_p.set(title=f"{act}: width sweep")
        ax_p.legend(frameon=False, fontsize=8)
        ax_t.errorbar(widths, d50, err, fmt="o-", color="C4", capsize=3)
        ax_t.set(xlabel="width m", ylabel=r"$\delta_{50}$ (logistic fit)", xscale="log", xticks=widths)
        ax_t.set_xticklabels([str(w) for w in widths])
    fig.tight_layout()
    return fig


def easy_hard_figure(runs):
    """Overlap of the learned weights with the easy (solid) and hard (dashed) direction vs step.

    ``runs``: list of (δ, steps, direction overlaps, neuron overlaps), each of shape
    (trials, steps, 2), one column of panels per δ.  Top: ‖P_{span Θ} θ*_l‖ (is direction l
    learned by the network); bottom: max_j |⟨θ̂_j, θ*_l⟩| (is it carried by a single neuron).
    """
    fig, axes = plt.subplots(2, len(runs), figsize=(W, 4.8), squeeze=False, sharey=True)
    directions = ((0, "-", "C0", "easy ($z_1$)"), (1, "--", "C3", "hard ($z_2$)"))
    for column, (delta, steps, span, neuron) in enumerate(sorted(runs, key=lambda r: r[0])):
        for ax, overlaps in zip(axes[:, column], (span, neuron), strict=True):
            for trial in range(overlaps.shape[0]):
                for index, style, colour, name in directions:
                    label = name if trial == 0 else None
                    ax.plot(steps + 1, overlaps[trial, :, index], style, color=colour, lw=1, label=label)
            ax.set(xscale="log", xlabel="GD step + 1", title=rf"$\delta$ = {delta:g}", ylim=(-0.02, 1.02))
            ax.legend(frameon=False, fontsize=8)
    axes[0, 0].set(ylabel=r"$\|P_{\mathrm{span}\,\Theta}\,\theta^*_l\|$")
    axes[1, 0].set(ylabel=r"max$_j\,|\langle \hat\theta_j, \theta^*_l\rangle|$")
    fig.tight_layout()
    return fig


def convention_figure(rows, paper):
    """δ₅₀ of GeLU (x) against δ₅₀ of Quad (y), one point per convention with its 1-σ errors
    (filled: the plateau agrees with the paper's too), and the paper's point (star)."""
    fig, ax = plt.subplots(figsize=(6.4, 5.0))
    for row in rows:
        x, y = row["delta50_gelu"], row["delta50_quad"]
        if not (np.isfinite(x) and np.isfinite(y)):
            continue
        colour = "C2" if row["fits_all_three"] else "C0"
        face = colour if row["plateau_agrees"] else "white"
        ax.errorbar(
            x,
            y,
            xerr=row["delta50_gelu_err"],
            yerr=row["delta50_quad_err"],
            fmt="o",
            color=colour,
            mfc=face,
            ms=5,
            capsize=2,
        )
        ax.annotate(
            f"{row['rank']}. {row['convention']}",
            (x, y),
            fontsize=7.5,
            xytext=(4, 3),
            textcoords="offset points",
        )
    ax.plot(paper["gelu"], paper["quad"], "*", color="C3", ms=14, label="paper (GeLU 6.0, Quad 3.6)")
    ax.set(xlabel=r"$\delta_{50}$, GeLU", ylabel=r"$\delta_{50}$, Quad")
    ax.set_title("conventions (filled: Fig 2 plateau agrees; green: all three agree)", fontsize=9)
    ax.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def landscape_figure(cells):
    """Fig 3, measured: R̂ on planes through the restricted-GD plateau θ_R (columns: one δ each;
    rows: the plane of θ_R and θ*, the plane of θ_R and the Hessian's bottom eigenvector), with
    unrestricted GD from the same initialisation projected onto each plane (white: start, red:
    end), the plateau marked (×) and the curvature of R̂ along the plane's second axis in the title."""
    fig, axes = plt.subplots(2, len(cells), figsize=(W, 5.8), squeeze=False)
    titles = {"hard": r"plane ($\theta_R$, $\theta^*$)", "outlier": r"plane ($\theta_R$, $v_{\min}$)"}
    for col, cell in enumerate(cells):
        for row, plane in enumerate(("hard", "outlier")):
            ax = axes[row, col]
            alphas, betas, risk = cell[f"{plane}_alphas"], cell[f"{plane}_betas"], cell[f"{plane}_risk"]
            levels = np.quantile(risk, np.linspace(0, 1, 25))
            ax.contourf(betas, alphas, risk, levels=np.unique(levels), cmap="viridis")
            ax.plot(cell[f"{plane}_path_b"], cell[f"{plane}_path_a"], "-", color="w", lw=1.2)
            ax.plot(cell[f"{plane}_path_b"][0], cell[f"{plane}_path_a"][0], "o", color="w", ms=5)
            ax.plot(cell[f"{plane}_path_b"][-1], cell[f"{plane}_path_a"][-1], "o", color="C3", ms=5)
            ax.plot(0.0, float(cell["plateau_norm"]), "x", color="C1", ms=9, mew=2)
            curvature = float(cell[f"{plane}_curvature"])
            extra = f", overlap² with θ* {float(cell['outlier_overlap2']):.2f}" if plane == "outlier" else ""
            ax.set_title(
                f"δ={float(cell['delta']):g}, d={int(cell['d'])}: {titles[plane]}\n"
                f"curvature at θ_R: {curvature:.3g}{extra}",
                fontsize=8,
            )
            ax.set(xlabel="along θ*" if plane == "hard" else r"along $v_{\min}$", ylabel=r"along $\theta_R$")
    fig.tight_layout()
    return fig


LAW_STYLES = {
    "constant": ("C0", ":", "constant"),
    "linear": ("k", "-", r"$a + b\,\log_2 d$"),
    "quadratic": ("0.5", "--", r"$a + b\,\log_2 d + \kappa \log_2^2 d$"),
    "power": ("C2", "--", r"$\delta_\infty - c\,d^{-\nu}$"),
    "log": ("C1", "--", r"$\delta_\infty - c/\ln(d/d_0)$"),
}


def finite_size_figure(panels):
    """δ₅₀ against d (log axis) per model: the measured points with their 95 % profile intervals, each
    law fitted by the joint likelihood, δ_NN(∞) (dash-dot) and the paper's value (dotted), all read
    from the finite-size tables (docs/finite_size.md); one key for every panel below them.  The
    numbers behind the laws (slope, curvature, the constant's level, ΔAICc) are the manuscript's
    finite-size tables, not the legend; a limit law's δ∞ is never printed, its status (F9) is in
    the panel's title.

    ``panels``: [(model, per-d rows, law rows, summary row, curve rows, δ_NN(∞), paper value)].
    """
    fig, axes = plt.subplots(1, len(panels), figsize=(W, 3.2), squeeze=False)
    for ax, (model, points, _, summary, curves, delta_nn, paper) in zip(axes[0], panels, strict=True):
        ok = [p for p in points if p["status"] in FITTED and np.isfinite(p["delta50_err"])]
        value = np.array([p["delta50"] for p in ok])
        low = np.array([p["delta50_low"] for p in ok])
        high = np.array([p["delta50_high"] for p in ok])
        err = np.array([p["delta50_err"] for p in ok])
        below = np.where(np.isfinite(low), value - low, 2 * err)
        above = np.where(np.isfinite(high), high - value, 2 * err)
        ax.errorbar(
            [p["d"] for p in ok],
            value,
            [below, above],
            fmt="ko",
            capsize=3,
            ms=4,
            label=r"GD $\delta_{50}(d)$",
            zorder=3,
        )
        for law, (colour, style, name) in LAW_STYLES.items():
            rows = [r for r in curves if r["law"] == law]
            if rows:
                ax.plot(
                    [r["d"] for r in rows],
                    [r["value"] for r in rows],
                    style,
                    color=colour,
                    lw=1.1,
                    label=name,
                )
        if np.isfinite(delta_nn):
            ax.axhline(delta_nn, color="C3", ls="-.", lw=1, label=r"$\delta_{NN}(\infty)$")
        if np.isfinite(paper):
            ax.axhline(paper, color="0.4", ls=":", lw=1, label="the paper's value")
        # the frame holds the measurements and the reference values; an extrapolated law may leave it
        marks = [*(low[np.isfinite(low)]), *(high[np.isfinite(high)]), *value]
        marks += [x for x in (delta_nn, paper) if np.isfinite(x)]
        if marks:
            pad = 0.15 * (max(marks) - min(marks)) + 0.1
            ax.set_ylim(min(marks) - pad, max(marks) + pad)
        ax.set(
            xscale="log",
            xlabel="d",
            ylabel=r"$\delta_{50}$",
            title=f"{model}\nδ∞, power/log laws: {summary['limit_status']}",
        )
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())  # a narrow log range labels every minor tick
    key = {}
    for ax in axes[0]:  # one key: the labels of every panel, each once
        key |= dict(zip(*reversed(ax.get_legend_handles_labels()), strict=True))
    fig.legend(
        key.values(), key.keys(), loc="lower center", bbox_to_anchor=(0.5, 0.05), ncol=4, frameon=False
    )
    fig.text(
        0.01,
        0.005,
        "Error bars: 95 % profile-likelihood intervals (joint binomial likelihood of every cell). No finite d"
        " determine δ∞ whatever the law.",
        fontsize=7.5,
    )
    fig.tight_layout(rect=(0, 0.24, 1, 1))
    return fig
