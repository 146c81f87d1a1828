"""The escape's anatomy, drawn from its stored cells and table rows (docs/escape.md, "The anatomy of an
escape")."""

import matplotlib.pyplot as plt
import numpy as np

from featlearn.analysis.anatomy_tables import aligned_minimum
from featlearn.plotting.figures import shades

SUCCESS, FAILURE = "tab:blue", "0.55"


def representative(cells):
    """The cell drawn trial by trial: the one whose success fraction is nearest ½ (among ties, the
    largest d, then the smallest δ)."""
    return min(cells, key=lambda c: (abs(np.mean(c["success"]) - 0.5), -int(c["d"]), float(c["delta"])))


def _trials(ax, cell, values, ylabel):
    """One line per trial of ``values`` [trial, state] against step + 1 (successes coloured)."""
    for i in range(cell["steps"].shape[0]):
        valid = cell["steps"][i] >= 0
        colour = SUCCESS if cell["success"][i] else FAILURE
        ax.plot(cell["steps"][i, valid] + 1, values[i, valid], color=colour, lw=0.8, alpha=0.85)
    ax.set(xscale="log", xlabel="GD step + 1", ylabel=ylabel)


def _fractions(ax, rows):
    """Share of successful (filled) and failed (open) trials with an aligned negative eigenvalue
    before escape (before the end), with its likelihood interval, against δ per d (the two kinds
    drawn a little apart in δ)."""
    ds = sorted({r["d"] for r in rows})
    for colour, d in zip(shades(len(ds)), ds, strict=True):
        at = sorted((r for r in rows if r["d"] == d), key=lambda r: r["delta"])
        for key, total, marker, face, shift in (
            ("aligned_success", "successes", "o", colour, -0.06),
            ("aligned_failure", "failures", "s", "none", 0.06),
        ):
            kept = [r for r in at if r[total] > 0]
            x = np.array([r["delta"] for r in kept]) + shift
            y = np.array([r[key] / r[total] for r in kept])
            err = [y - [r[f"{key}_low"] for r in kept], [r[f"{key}_high"] for r in kept] - y]
            ax.errorbar(x, y, err, fmt=marker, color=colour, mfc=face, ms=4, capsize=2, lw=0.8)
        ax.plot([], [], "o", color=colour, label=f"d = {d}")
    ax.plot([], [], "o", color="k", label="successes")
    ax.plot([], [], "s", color="k", mfc="none", label="failures")
    ax.set(xlabel=r"$\delta$", ylabel="aligned before escape", ylim=(-0.05, 1.05))
    ax.legend(frameon=False, fontsize=8, loc="center left", bbox_to_anchor=(1.0, 0.5))


def anatomy_figure(cells_by_sweep, rows):
    """Per sweep (a row of panels): ρ per trial, the most negative aligned Hessian eigenvalue per trial
    (0 where none; successes and failures coloured, their key in the first panel's legend) at the
    representative cell, and the aligned shares of every cell."""
    names = sorted(cells_by_sweep)
    fig, axes = plt.subplots(len(names), 3, figsize=(7.2, 2.4 * len(names)), squeeze=False)
    for row_axes, name in zip(axes, names, strict=True):
        cell = representative(cells_by_sweep[name])
        title = f"{name}, d = {int(cell['d'])}, δ = {float(cell['delta']):g}"
        _trials(row_axes[0], cell, cell["full_rho"], r"$\rho$")
        row_axes[0].set_title(title, fontsize=9)
        _trials(
            row_axes[1],
            cell,
            aligned_minimum(cell["full_eigenvalues"], cell["full_overlap2"]),
            "aligned λ (0: none)",
        )
        _fractions(row_axes[2], [r for r in rows if r["sweep"] == name])
        row_axes[2].set_title(name, fontsize=9)
        for colour, label in ((SUCCESS, "successes"), (FAILURE, "failures")):  # the colour key of the trials
            row_axes[0].plot([], [], color=colour, lw=0.8, label=label)
        row_axes[0].legend(frameon=False, fontsize=8, loc="best")
    for ax in axes.flat:
        ax.tick_params(labelsize=8)
        ax.xaxis.label.set_size(9)
        ax.yaxis.label.set_size(9)
    fig.tight_layout()
    return fig
