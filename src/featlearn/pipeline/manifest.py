"""The figure manifest: every figure stem, the paper figure it reproduces and the rule that draws it.

One list, used by the rules (targets, wildcard constraints, which theory figure to draw), the
config check (no two figures may share a stem) and the tests (the README names every stem).
Stems of sweep phase figures come from the config (``sweeps.<name>.figure``, with the paper
figure in ``sweeps.<name>.paper``), those of the long runs are their names, those of Figs 1, 6
and 11 their ``stem`` keys; the others are fixed here.  ``paper`` is "" for figures the
workflow adds (no counterpart in the paper).
"""

from dataclasses import dataclass, replace
from pathlib import PurePath


@dataclass(frozen=True)
class Figure:
    """A figure: its file stem ("{stem}": its section's ``stem`` key; "{name}": one figure per key of
    its section), the paper figure it reproduces
    ("Fig 4", "Fig 10b", or "" for a figure the workflow adds), the rule that draws it, its caption,
    and the optional config section without which it is not drawn."""

    stem: str
    paper: str
    rule: str
    caption: str
    section: str | None = None


def _section(config, dotted):
    """The config section at the dotted path (None where it is absent or empty)."""
    node = config
    for part in dotted.split("."):
        node = (node or {}).get(part)
    return node or None


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
        "sweep_escape_steps_figure",
        "Escape step (first step with ρ ≥ escape_rho) vs δ, median and quartiles, per sweep.",
    ),
    Figure(
        "extra_escape_linear_stage",
        "",
        "escape_linear_table",
        "Variance of the hard coordinate √d θ₁^t: the linear Gaussian process of the DMFT kernels vs "
        "unrestricted GD and its exact linearisation (docs/escape.md, eqs. (E5), (E7)).",
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
    Figure(
        "{stem}",
        "Fig 1",
        "spectral_figure",
        "GD success vs δ from random and from the optimal spectral init, δ_alg, and the spectral "
        "estimator's overlap vs the asymptotic curve.",
        section="figure1",
    ),
    Figure(
        "{stem}",
        "Fig 3",
        "landscape_figure",
        "The empirical risk on planes through the restricted-GD plateau (with θ*, and with the "
        "Hessian's bottom eigenvector), below and above the transition, with unrestricted GD "
        "projected: the saddle and the escape along its negative curvature.",
        section="landscape",
    ),
    Figure("{stem}", "Fig 6", "width_figure", "Success vs δ per width m, and δ₅₀ vs m.", section="width"),
    Figure(
        "{stem}",
        "Fig 11",
        "easy_hard_figure",
        "Overlap of span(Θ) (top) and of the best neuron (bottom) with the easy and the hard "
        "direction vs GD step.",
        section="easy_hard",
    ),
    Figure(
        "{stem}",
        "",
        "finite_size_scaling",
        "δ₅₀ against d (log axis) per model with its 95 % profile intervals, each law fitted by the "
        "joint likelihood (labels: slope per doubling, δ∞'s interval or one-sided bound), δ_NN(∞) "
        "of the static fixed point and the paper's value; the title gives δ∞'s verdict.",
        section="finite_size",
    ),
    Figure(
        "{stem}",
        "",
        "design_table",
        "Per design: the theory's δ_NN(∞) (static fixed point) and min_t δ_NN(t) (DMFT, ± s.e.), "
        "and GD's δ₅₀ where a sweep measured the design, with Spearman's rank correlation.",
        section="design",
    ),
    Figure(
        "{name}",
        "Fig 2",
        "grokking_figure",
        "Train and test loss and misalignment 1 − ρ along one long GD run (never frozen).",
        section="grokking",
    ),
    Figure(
        "extra_escape_two_stage",
        "",
        "escape_two_stage_table",
        "GD success vs δ per d with the two-stage prediction (linear process to t₀, then the DMFT "
        "with signal kicked at t₀) per t₀, and δ₅₀ vs d (overlay escape_two_stage.yaml).",
        section="escape.two_stage",
    ),
    Figure(
        "extra_conventions",
        "",
        "convention_table",
        "δ₅₀ of GeLU against δ₅₀ of Quad for each modelling convention (convention explorer "
        "overlay), with the paper's point.",
        section="conventions",
    ),
)

THEORY_KINDS = {
    "fig9_dmft_vs_simulation": "dmft_vs_simulation",
    "fig10a_outlier_vs_time": "outlier_vs_time",
    "fig10b_delta_nn": "delta_nn",
}
"""Which theory figure a ``theory_figure`` job draws."""


def figures(config):
    """Every figure of ``config``: the manifest's own (less those of an absent section) and one
    phase figure per sweep."""
    out = []
    for f in FIXED:
        node = _section(config, f.section) if f.section else {}
        if f.section and not node:
            continue
        stems = list(node) if f.stem == "{name}" else [f.stem.format(stem=node.get("stem"))]
        out += [replace(f, stem=stem) for stem in stems]
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


@dataclass(frozen=True)
class Table:
    """A results table (``results/tables/<name>``): its caption, whether a build targets it (the
    others are inputs of a target), the optional config section without which it is not built, and
    whether the claims read it (True; or the claims' role key of the one sweep whose table they read,
    ``claims.sweeps``).  ``{sweep}``, ``{activation}`` and ``{easy_hard}`` in a name stand for each
    sweep, each Hessian activation and the easy/hard figure's stem."""

    name: str
    caption: str
    target: bool = False
    section: str | None = None
    claims: bool | str = False

    def names(self, config):
        """The file names of this table in ``config``'s build (none without its section)."""
        if self.section and not _section(config, self.section):
            return []
        values = {
            "sweep": list(config["sweeps"]),
            "activation": list(config["hessian"]["delta"]),
            "easy_hard": [config["easy_hard"]["stem"]],
        }
        field = next((k for k in values if f"{{{k}}}" in self.name), None)
        return [self.name.format(**{field: v}) for v in values[field]] if field else [self.name]


TABLES = (
    Table(
        "thresholds.csv",
        "Empirical δ₅₀ ± 1σ and its 95 % profile interval per sweep and d (logistic fit), and δ_alg "
        "per link.",
        target=True,
        claims=True,
    ),
    Table(
        "{sweep}_cells.csv",
        "Per (d, δ) cell of one sweep: successes, final-ρ median and 30/70 % quantiles (all and "
        "failed trials), escape-step quartiles, trials stopped at a certified minimum.",
        claims="gelu",
    ),
    Table(
        "{sweep}_thresholds.csv",
        "Per d of one sweep: the logistic fit of success vs δ (δ₅₀, scale, errors, δ₅₀'s profile "
        "interval, status).",
    ),
    Table(
        "delta_alg.csv",
        "δ_alg of the optimal spectral method per single-index link.",
        claims=True,
    ),
    Table(
        "spectral_theory.csv",
        "Asymptotic overlap of the optimal spectral estimator vs δ.",
    ),
    Table(
        "hessian_{activation}.csv",
        "Per δ and seed at the restricted-GD plateau: λ_min, overlap², bulk edge, H₁₁, the "
        "semi-empirical outlier.",
        claims=True,
    ),
    Table(
        "{easy_hard}_learning_steps.csv",
        "Per trial of the easy+hard target: the step at which each direction is learned.",
        claims=True,
    ),
    Table(
        "theory_thresholds.csv",
        "δ_alg, δ_NN(t) from the DMFT for each N, the long-time δ_NN(∞) and the empirical δ₅₀ per "
        "theory model.",
        target=True,
        claims=True,
    ),
    Table(
        "theory_thresholds.tex",
        "The theory thresholds as a LaTeX table.",
        target=True,
    ),
    Table(
        "dmft_vs_simulation.csv",
        "‖θ‖², train loss and H₁₁ along restricted GD: DMFT vs simulation.",
        target=True,
        claims=True,
    ),
    Table(
        "outlier_vs_simulation.csv",
        "Hessian outlier and bulk edge vs GD time: DMFT law vs simulated spectra.",
        target=True,
    ),
    Table(
        "bounded_link_validation.csv",
        "Bounded link: the δ at which simulation first shows a negative aligned outlier vs the DMFT's "
        "δ_NN(t).",
        target=True,
    ),
    Table(
        "escape_linear_stage.csv",
        "The hard coordinate's variance: linear process vs unrestricted GD and its exact "
        "linearisation, with the referee's linear horizon.",
        target=True,
    ),
    Table(
        "escape_referee_trials.csv",
        "The referee trial by trial: the hard coordinate of unrestricted GD and of its exact "
        "linearisation from the same seed, their relative error and the trial's linear horizon.",
    ),
    Table(
        "escape_signal.csv",
        "DMFT with signal (d = ∞, and with its finite-d fluctuation) vs unrestricted GD from a "
        "planted overlap.",
        target=True,
    ),
    Table(
        "escape_signal_runs.csv",
        "Per planted run: the final overlap, and ‖∇R̂‖ and λ_min where it ends.",
    ),
    Table(
        "escape_prediction.csv",
        "Predicted (linear process) vs measured success, escape steps and failed-trial ρ per model, "
        "d, δ and ρ_c.",
        target=True,
    ),
    Table(
        "delta50_prediction.csv",
        "Predicted vs empirical δ₅₀ per model and d, with the verdict.",
        target=True,
    ),
    Table(
        "finite_size_summary.csv",
        "Per model: what its d decide (joint binomial likelihood, 95 % profile intervals): the slope "
        "per doubling of d, the curvature, the width exponent, the tests of a constant and of no "
        "limit, δ∞'s verdict with its interval or one-sided bound, and the bootstrap's law choice.",
        claims=True,
    ),
    Table(
        "finite_size_scaling.csv",
        "Per model and law of δ₅₀(d): the joint-likelihood fit, AICc, the nested likelihood-ratio "
        "p-value, δ∞ with its profile interval, and the prediction of the largest d.",
        target=True,
        claims=True,
    ),
    Table(
        "finite_size_points.csv",
        "Per model and d: δ₅₀ ± s.e. with its profile interval, and the transition width from the "
        "logistic fit.",
        claims=True,
    ),
    Table(
        "finite_size_collapse.csv",
        "Per model and cell: the success fraction against x = (δ − δ₅₀(d))/w(d), the collapse of "
        "every d onto one logistic.",
    ),
    Table(
        "finite_size_decide.csv",
        "Per model and design (new doublings of d, trials per cell): the expected separation of 'δ∞ = "
        "δ_NN(∞)' and 'growth ∝ log d' under each, and its core-hours (upper bound).",
    ),
    Table(
        "spectral_threshold.csv",
        "Per activation and d: δ_spec(d), the zero crossing of the plateau Hessian's smallest "
        "eigenvalue against δ, with Fieller's interval, and δ_NN(∞).",
        target=True,
        section="spectral_threshold",
    ),
    Table(
        "escape_two_stage.csv",
        "Two-stage prediction (linear process to t₀, then the kicked DMFT with signal) vs measured "
        "success per model, d, δ and t₀, with the critical overlap m* and V(t₀).",
        section="escape.two_stage",
    ),
    Table(
        "delta50_two_stage.csv",
        "Two-stage predicted vs empirical δ₅₀ per model, d and t₀, with the verdict.",
        target=True,
        section="escape.two_stage",
    ),
    Table(
        "escape_two_stage_scans.csv",
        "The kick scans of the DMFT with signal: ρ at the horizon and escape step per δ, t₀ and m₀.",
        section="escape.two_stage",
    ),
    Table(
        "conventions.csv",
        "Modelling conventions ranked by their distance to the paper's three numbers.",
        target=True,
        section="conventions",
    ),
    Table(
        "convention_scans.csv",
        "Per convention, activation and d: the auto-refined δ scan and its fit.",
        section="conventions",
    ),
    Table(
        "design.csv",
        "Per design (and the family's minimiser): δ_alg, δ_NN(∞) with its AT value, min_t δ_NN(t) ± "
        "s.e., GD's δ₅₀ per d where swept, the theory's rank.",
        target=True,
        section="design",
    ),
    Table(
        "claims.csv",
        "The paper's claims, the measured values and the computed verdicts.",
        target=True,
    ),
)
"""Every results table of a build, in the order of the results index."""


def tables(config):
    """[(Table, [file names])] of every table ``config``'s build writes."""
    out = [(table, table.names(config)) for table in TABLES]
    return [(table, names) for table, names in out if names]


def target_tables(config):
    """The file names of the tables a build targets."""
    return [name for table, names in tables(config) if table.target for name in names]


def claim_tables(config):
    """The file names of the tables the claims read: every one of a table they read whole, and of a
    per-sweep table the one of the sweep their role key names (``claims.sweeps``)."""
    out = []
    for table, names in tables(config):
        if table.claims is True:
            out += names
        elif table.claims:
            out.append(table.name.format(sweep=config["claims"]["sweeps"][table.claims]))
    return out


def caption_of(config, path):
    """The report caption of a figure (its PNG) or a results table of ``config``'s build, from its
    file name."""
    name = PurePath(path).name
    captions = {f"{f.stem}.png": f.caption for f in figures(config)}
    captions |= {file: table.caption for table, names in tables(config) for file in names}
    if name not in captions:
        raise KeyError(f"no caption for {name!r}: add it to the manifest (FIXED or TABLES)")
    return captions[name]
