"""Figure helpers: every figure is drawn from stored result tables/arrays, never recomputed here."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from .thresholds import logistic  # noqa: E402


def shades(n, cmap="Blues"):
    """n colours from light to dark (small → large d)."""
    return plt.get_cmap(cmap)(np.linspace(0.4, 0.95, n)) if n > 1 else plt.get_cmap(cmap)([0.8])


def binomial_error(k, n):
    """1-σ binomial standard error of the success fraction k/n."""
    p = k / n
    return np.sqrt(p * (1 - p) / n)


def save(fig, stem_paths):
    """Save one figure to every path given (PDF and PNG)."""
    for path in stem_paths:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(fig)


def phase_figure(cells, fits, title, cmap="Blues"):
    """Left: success rate vs δ per d (dots, binomial errors, logistic fit). Right: final ρ median, 30–70 %."""
    fig, (ax_p, ax_r) = plt.subplots(1, 2, figsize=(10, 3.8))
    ds = sorted({int(c["d"]) for c in cells})
    for colour, d in zip(shades(len(ds), cmap), ds, strict=True):
        rows = sorted((c for c in cells if int(c["d"]) == d), key=lambda c: c["delta"])
        delta = np.array([c["delta"] for c in rows])
        k = np.array([c["successes"] for c in rows], dtype=float)
        n = np.array([c["trials"] - c["diverged"] for c in rows], dtype=float)
        ax_p.errorbar(
            delta, k / n, binomial_error(k, n), fmt="o", color=colour, ms=4, capsize=2, label=f"d={d}"
        )
        fit = next((f for f in fits if int(f["d"]) == d), None)
        if fit is not None and fit["status"] in ("ok", "firth"):
            grid = np.linspace(delta.min(), delta.max(), 200)
            ax_p.plot(grid, logistic(grid, fit["delta50"], fit["scale"]), color=colour, lw=1.2)
        med = np.array([c["rho_median"] for c in rows])
        lo = np.array([c["rho_q30"] for c in rows])
        hi = np.array([c["rho_q70"] for c in rows])
        ax_r.errorbar(
            delta, med, [med - lo, hi - med], fmt="o-", color=colour, ms=4, capsize=2, label=f"d={d}"
        )
    ax_p.set(xlabel=r"$\delta = n/d$", ylabel="success rate", ylim=(-0.05, 1.05), title=title)
    ax_r.set(xlabel=r"$\delta = n/d$", ylabel=r"final $\rho$ (median, 30–70%)", ylim=(-0.02, 1.02))
    ax_p.legend(frameon=False, fontsize=8)
    ax_r.legend(frameon=False, fontsize=8)
    fig.tight_layout()
    return fig


def grokking_figure(traj, title):
    """Train loss, test loss and misalignment 1 − ρ vs GD step (log axis)."""
    steps = traj["steps"] + 1
    fig, ax = plt.subplots(figsize=(6, 3.8))
    ax.plot(steps, traj["train_loss"], label="train loss")
    ax.plot(steps, traj["test_loss"], label="test loss")
    ax.plot(steps, 1 - traj["rho"], label=r"$1-\rho$")
    ax.set(xscale="log", yscale="log", xlabel="GD step + 1", title=title)
    ax.legend(frameon=False)
    fig.tight_layout()
    return fig
