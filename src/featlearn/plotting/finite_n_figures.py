"""The prediction from the finite system's early window against GD's measured δ₅₀(d), drawn from the
rows of delta50_finite_n.csv (docs/escape.md, (E19)–(E23))."""

import math

import matplotlib.pyplot as plt
import numpy as np

READING_STYLE = {
    "linear": ("tab:blue", "o", "linear process to the window's end (E20)"),
    "growth": ("tab:orange", "s", "aligned growth exponent (E21)"),
    "curvature": ("tab:green", "^", "linear process while θ*ᵀHθ* < 0"),
    "hessian_linear": ("tab:purple", "v", "linear process to the finite Hessian's window (E24)"),
    "hessian_growth": ("tab:red", "P", "finite Hessian's aligned growth (E24)"),
    "hessian_forced": ("tab:olive", "d", "finite Hessian's window, forced (E26)"),
    "level_growth": ("tab:brown", "X", "finite Hessian's growth to the success level (E25)"),
    "level_linear": ("tab:pink", "*", "linear process to the success level (E25)"),
    "level_forced": ("tab:cyan", "h", "forced window to the success level (E26)"),
    "initial": ("tab:gray", ">", "trial's own DMFT from initialisation (E27)"),
}
"""Reading → (colour, marker, legend label)."""


def _interval(ax, d, value, low, high, colour, marker, label, shift):
    """Points at d·shift with their interval; an open end (±∞) drawn to the panel's edge by an arrow."""
    x = np.asarray(d, float) * shift
    finite = np.isfinite(value)
    ax.plot(x[finite], value[finite], marker=marker, color=colour, label=label, lw=1, ms=4)
    lo = np.where(np.isfinite(low), low, value)
    hi = np.where(np.isfinite(high), high, value)
    ax.vlines(x[finite], lo[finite], hi[finite], color=colour, lw=1)
    for xi, v, h in zip(x, value, high, strict=True):
        if math.isfinite(v) and h == math.inf:
            ax.annotate("", (xi, v + 1.0), (xi, v), arrowprops={"arrowstyle": "->", "color": colour})


def finite_n_figure(rows, rho_c):
    """Per model a panel: the measured δ₅₀(d) (black, profile interval) and each reading's predicted
    δ₅₀(d) at ``rho_c`` (bootstrap interval over path sets; an arrow where it is open upwards)."""
    models = sorted({r["model"] for r in rows})
    fig, axes = plt.subplots(1, len(models), figsize=(7.2, 4.0), squeeze=False)
    for ax, model in zip(axes[0], models, strict=True):
        mine = [r for r in rows if r["model"] == model and math.isclose(r["rho_c"], rho_c)]
        first = [r for r in mine if r["reading"] == "linear"]
        d = [r["d"] for r in first]
        _interval(
            ax,
            d,
            np.array([r["delta50_measured"] for r in first]),
            np.array([r["delta50_measured_low"] for r in first]),
            np.array([r["delta50_measured_high"] for r in first]),
            "black",
            "D",
            "GD, measured",
            1.0,
        )
        for k, (reading, (colour, marker, label)) in enumerate(READING_STYLE.items()):
            sel = [r for r in mine if r["reading"] == reading]
            if not sel:  # not computed for this model (no legend entry for what is not drawn)
                continue
            _interval(
                ax,
                [r["d"] for r in sel],
                np.array([r["delta50_predicted"] for r in sel]),
                np.array([r["delta50_predicted_low"] for r in sel]),
                np.array([r["delta50_predicted_high"] for r in sel]),
                colour,
                marker,
                label,
                1.04 ** (k + 1),
            )
        ax.set_xscale("log")
        ax.set_xticks(d, [str(int(x)) for x in d])
        ax.minorticks_off()
        ax.set_xlabel("d", fontsize=9)
        ax.set_ylabel(r"$\delta_{50}(d)$", fontsize=9)
        ax.set_title(f"{model}, ρ_c = {rho_c:g}", fontsize=9)
        ax.tick_params(labelsize=8)
    legend = {}  # every panel's entries once (a reading may be drawn on one model only)
    for ax in axes[0]:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            legend.setdefault(label, handle)
    fig.legend(legend.values(), legend.keys(), loc="lower center", ncol=2, fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.3, 1, 1))
    return fig
