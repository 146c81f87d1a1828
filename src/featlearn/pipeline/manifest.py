"""The figure manifest: every figure stem, the paper figure it reproduces and the rule that draws it.

One list, used by the rules (targets, wildcard constraints, which theory figure to draw), the
config check (no two figures may share a stem) and the tests (the README names every stem).
Stems of sweep phase figures come from the config (``sweeps.<name>.figure``, with the paper
figure in ``sweeps.<name>.paper``), those of the long runs are their names, those of Figs 1, 6
and 11 their ``stem`` keys; the others are fixed here.  ``paper`` is "" for figures the
workflow adds (no counterpart in the paper).
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    stem: str
    paper: str  # "Fig 4", "Fig 10b", or "" (a figure the workflow adds)
    rule: str
    caption: str


FIXED = (
    Figure(
        "fig7_hessian_spectrum",
        "Fig 7",
        "hessian_spectrum_figure",
        "Bulk histogram and bottom eigenvalue of the Hessian at the restricted-GD plateau, below and "
        "above the transition.",
    ),
    Figure(
        "fig8_hessian_vs_delta",
        "Fig 8",
        "hessian_delta_figure",
        "λ_min, bulk edge and overlap² of the bottom eigenvector vs δ at the plateau, with the "
        "fixed-point theory.",
    ),
    Figure(
        "extra_hessian_trajectory",
        "",
        "hessian_trajectory_figure",
        "λ_min, bulk edge and overlap² along restricted GD (checkpoints).",
    ),
    Figure(
        "extra_escape_steps",
        "",
        "escape_figure",
        "Escape step (first step with ρ ≥ escape_rho) vs δ, median and quartiles, per sweep.",
    ),
    Figure(
        "extra_escape_linear_stage",
        "",
        "escape_linear_table",
        "Variance of the hard coordinate √d θ₁^t: the linear Gaussian process of the DMFT kernels vs "
        "unrestricted GD and its exact linearisation (escape.md).",
    ),
    Figure(
        "extra_escape_prediction",
        "",
        "escape_prediction_table",
        "GD success vs δ per d with the success probability predicted by the linear hard-coordinate "
        "process, and δ₅₀ vs d: measured, predicted, and δ_NN(∞) as the d → ∞ reference.",
    ),
    Figure(
        "fig9_dmft_vs_simulation",
        "Fig 9",
        "theory_figure",
        "‖θ‖², train loss and H₁₁ along restricted GD: DMFT vs simulation.",
    ),
    Figure(
        "fig10a_outlier_vs_time",
        "Fig 10a",
        "theory_figure",
        "Hessian outlier and bulk edge vs GD time: DMFT law vs simulated spectra.",
    ),
    Figure(
        "fig10b_delta_nn",
        "Fig 10b",
        "theory_figure",
        "δ_NN(t) from the DMFT law for each N, the long-time value and the empirical δ₅₀.",
    ),
)

THEORY_KINDS = {
    "fig9_dmft_vs_simulation": "dmft_vs_simulation",
    "fig10a_outlier_vs_time": "outlier_vs_time",
    "fig10b_delta_nn": "delta_nn",
}
"""Which theory figure a ``theory_figure`` job draws."""


def figures(config):
    """Every figure of ``config``: the fixed ones, Fig 1, the width and easy/hard figures, and
    one phase figure per sweep."""
    out = list(FIXED)
    out.append(
        Figure(
            config["figure1"]["stem"],
            "Fig 1",
            "spectral_figure",
            "GD success vs δ from random and from the optimal spectral init, δ_alg, and the "
            "spectral estimator's overlap vs the asymptotic curve.",
        )
    )
    out.append(
        Figure(config["width"]["stem"], "Fig 6", "width_figure", "Success vs δ per width m, and δ₅₀ vs m.")
    )
    out.append(
        Figure(
            config["easy_hard"]["stem"],
            "Fig 11",
            "easy_hard_figure",
            "Overlap of span(Θ) (top) and of the best neuron (bottom) with the easy and the hard "
            "direction vs GD step.",
        )
    )
    for name in config["grokking"]:
        out.append(
            Figure(
                name,
                "Fig 2",
                "grokking_figure",
                "Train and test loss and misalignment 1 − ρ along one long GD run (never frozen).",
            )
        )
    if config.get("conventions"):
        out.append(
            Figure(
                "extra_conventions",
                "",
                "convention_table",
                "δ₅₀ of GeLU against δ₅₀ of Quad for each modelling convention (convention explorer "
                "overlay), with the paper's point.",
            )
        )
    for name, spec in config["sweeps"].items():
        out.append(
            Figure(
                spec["figure"],
                spec.get("paper", ""),
                "phase_figure",
                f"Success rate and final ρ vs δ per d, sweep {name}.",
            )
        )
    return out


def duplicate_stems(config):
    """Stems that name more than one figure (a config error)."""
    stems = [f.stem for f in figures(config)]
    return sorted({s for s in stems if stems.count(s) > 1})


def markdown_table(config):
    """The manifest as the README's figure table (the README block is checked against it)."""
    lines = ["| stem | paper | rule | what it shows |", "|---|---|---|---|"]

    def order(f):
        number = "".join(c for c in f.paper if c.isdigit())
        return (f.paper == "", int(number or 0), f.paper, f.stem)

    for f in sorted(figures(config), key=order):
        lines.append(f"| `{f.stem}` | {f.paper or '(added)'} | `{f.rule}` | {f.caption} |")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    import yaml

    print(markdown_table(yaml.safe_load(open(sys.argv[1] if len(sys.argv) > 1 else "config.yaml"))))
