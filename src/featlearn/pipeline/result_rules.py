"""The table and figure rules: each declared once, with what it reads, writes and the config keys its
params come from.

A :class:`ResultRule` (keyword arguments only) says, for one rule computed from stored results:

* ``rule``, ``what`` (its message), ``script`` (``workflow/scripts/<script>.py``; by default
  ``plot_<x>`` for a figure rule ``<x>_figure``, else the rule's name) and ``log`` (the path under
  ``results/logs/`` and ``results/benchmarks/``, a pattern over the wildcards);
* ``inputs``: ``(config, wildcards) -> {name: path or [paths]}``, what it reads besides its code;
* ``tables`` and ``figures``: the results tables and figures it writes, each with its caption
  (:class:`TableEntry`, :class:`FigureEntry`: the one place a table's file name and a figure's stem
  are written).  Its tables come first among its outputs, then its figure (output ``figure``, its
  PDF and PNG), or, for a rule that draws one figure per job, the figure of the job's ``{stem}``;
* ``outputs``: any other file it writes, ``(name or None, kind, file)`` each (``kind`` "file", or
  "figure" for the per-stem figure), ``file`` a path;
* ``params``: ``{param: source}``, each source as a compute job's (``settings.resolve``: a config
  key pattern over the wildcards, or ``(config, wildcards) -> (value, origin)``), so that every
  param has its origin: :func:`params_by_output` lists the table and figure jobs as
  ``featlearn.pipeline.jobs.params_by_output`` lists the compute jobs (``tests/test_reruns.py``
  edits every key against both);
* ``jobs``: ``config -> [wildcards]`` of the jobs a config asks for (a per-stem figure rule's: one
  per stem of its figures); ``constraints``: ``config -> {wildcard: regex}``; ``local`` (False:
  sent to the cluster) and ``resources``.

Each rule is one literal block in a stage file of ``workflow/rules/`` (``rule NAME:``), whose parts
come from its entry here by name (``result_*`` in ``common.smk``, which adds the code stamp input,
the report wrappers and the report caption) and which writes out the script ``script`` names
(tests/test_workflow.py checks that the two agree); ``featlearn.pipeline.manifest`` answers what a
config's build writes from their tables and figures.
"""

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from featlearn.io.table_names import (
    BOUNDED_LINK_VALIDATION,
    CLAIMS,
    CONVENTION_SCANS,
    CONVENTIONS,
    DELTA50_FINITE_N,
    DELTA50_FINITE_N_VS_GD,
    DELTA50_PREDICTION,
    DELTA50_TWO_STAGE,
    DELTA_ALG,
    DESIGN,
    DMFT_VS_SIMULATION,
    ESCAPE_ANATOMY,
    ESCAPE_ANATOMY_VERDICT,
    ESCAPE_FINITE_N,
    ESCAPE_LINEAR_STAGE,
    ESCAPE_PREDICTION,
    ESCAPE_REFEREE_TRIALS,
    ESCAPE_SIGNAL,
    ESCAPE_SIGNAL_RUNS,
    ESCAPE_TWO_STAGE,
    ESCAPE_TWO_STAGE_SCANS,
    FINITE_SIZE_COLLAPSE,
    FINITE_SIZE_DECIDE,
    FINITE_SIZE_POINTS,
    FINITE_SIZE_SCALING,
    FINITE_SIZE_SUMMARY,
    FIXED_POINT_REFINEMENT,
    OUTLIER_VS_SIMULATION,
    PAPER_CORRESPONDENCE,
    PLATEAU_THRESHOLD,
    PLATEAU_VS_THEORY,
    SPECTRAL_THEORY,
    SPECTRAL_THRESHOLD,
    THEORY_THRESHOLDS,
    THRESHOLDS,
)
from featlearn.pipeline import jobs
from featlearn.pipeline import settings as typed

RESULTS = "results"
T, F, FILE = "table", "figure", "file"
"""Output kinds: a results table (its file name), a figure (its stem), any other file (its path)."""


def canonical(params):
    """A dict with sorted keys, recursively: Snakemake compares params in order, so key order in a
    config file must not make a job look changed."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(params.items())}


def section_of(config, dotted):
    """The config section at the dotted path (None where it is absent or empty)."""
    node = config
    for part in dotted.split("."):
        node = (node or {}).get(part)
    return node or None


@dataclass(frozen=True, kw_only=True)
class TableEntry:
    """A results table (``results/tables/<name>``) of the rule that declares it: its name among the
    rule's outputs (None: unnamed), its caption, whether a build targets it (the others are inputs
    of a target), the optional config section without which it is not built, and whether the claims
    read it (True; or the claims' role key of the one sweep whose table they read,
    ``claims.sweeps``).  ``{sweep}``, ``{activation}`` and ``{easy_hard}`` in a name stand for each
    sweep, each Hessian activation and the easy/hard figure's stem.  ``empty`` says, in one line, why
    the table can have no rows: the results index prints it in place of the caption when it has none,
    and leaves out an empty table that has no reason."""

    name: str
    caption: str
    empty: str = ""
    output: str | None = None
    target: bool = False
    section: str | None = None
    claims: bool | str = False
    rule: str = ""  # filled in by its ResultRule

    def names(self, config):
        """The file names of this table in ``config``'s build (none without its section)."""
        if self.section and not section_of(config, self.section):
            return []
        values = {
            "sweep": list(config["sweeps"]),
            "activation": list(config["hessian"]["delta"]),
            "easy_hard": [config["easy_hard"]["stem"]],
        }
        field = next((k for k in values if f"{{{k}}}" in self.name), None)
        return [self.name.format(**{field: v}) for v in values[field]] if field else [self.name]

    def pattern(self, config):
        """The file name as its rule's output: ``{easy_hard}`` filled from the config, ``{sweep}``
        and ``{activation}`` left as the rule's wildcards."""
        return self.name.replace("{easy_hard}", config["easy_hard"]["stem"])


@dataclass(frozen=True, kw_only=True)
class FigureEntry:
    """A figure (``results/figures/<stem>.{pdf,png}``) of the rule that declares it: its stem
    ("{stem}": the ``stem`` key of the config section ``section``; "{name}": one figure per key of
    that section), its caption, the paper figure it reproduces ("Fig 4", "Fig 10b", or "" for a
    figure the workflow adds) and the optional config section without which it is not drawn."""

    stem: str
    caption: str
    paper: str = ""
    section: str | None = None
    rule: str = ""  # filled in by its ResultRule

    def stems(self, config):
        """Its file stems in ``config``'s build (none without its section)."""
        node = section_of(config, self.section) if self.section else {}
        if self.section and not node:
            return []
        return list(node) if self.stem == "{name}" else [self.stem.format(stem=node.get("stem"))]


def _one_job(config):
    return [{}]


PER_STEM = (None, F, "{stem}")
"""The output of a rule that draws one figure per job: the figure of the job's ``{stem}``."""


@dataclass(frozen=True, kw_only=True)
class ResultRule:
    rule: str
    what: str
    log: str | Callable
    tables: tuple = ()
    figures: tuple = ()
    outputs: tuple = ()
    inputs: Callable = lambda config, w: {}
    params: dict = field(default_factory=dict)
    jobs: Callable = _one_job
    constraints: Callable = lambda config: {}
    script: str = ""
    local: bool = True
    resources: dict = field(default_factory=dict)

    def __post_init__(self):
        if not self.script:
            raise ValueError(f"{self.rule}: a table or figure rule names its script")
        for name in ("tables", "figures"):
            object.__setattr__(self, name, tuple(replace(e, rule=self.rule) for e in getattr(self, name)))

    def params_of(self, config, w):
        """({param: value}, the config keys they come from) of the job at wildcards ``w``."""
        resolved = {
            name: typed.resolve(config, name, source, dict(w)) for name, source in self.params.items()
        }
        return {name: value for name, (value, _) in resolved.items()}, typed.origin_keys(
            o for _, o in resolved.values()
        )

    def log_path(self, config):
        """The path under results/logs/ and results/benchmarks/ (no suffix)."""
        return self.log(config) if callable(self.log) else self.log

    def files(self, config):
        """[(name or None, kind, file pattern)]: its tables, its figure (unless it draws one per
        job, :data:`PER_STEM`; None where its section is absent), then its other outputs."""
        tables = [(t.output, T, t.pattern(config)) for t in self.tables]
        figures = [] if PER_STEM in self.outputs else [("figure", F, _stem(f, config)) for f in self.figures]
        return tables + figures + list(self.outputs)

    def first_output(self, config, w):
        """The first file a job at ``w`` writes (its key in ``params_by_output``)."""
        _, kind, file = self.files(config)[0]
        path = figure_files(file)[0] if kind == F else table(file) if kind == T else file
        return path.format(**w)


def _stem(figure, config):
    """The stem of a rule's one figure in ``config`` (None without its section)."""
    stems = figure.stems(config)
    return stems[0] if stems else None


# --- paths and inputs ------------------------------------------------------------------------------


def table(name):
    return f"{RESULTS}/tables/{name}"


def figure_files(stem):
    """A figure's PDF and PNG."""
    return [f"{RESULTS}/figures/{stem}.pdf", f"{RESULTS}/figures/{stem}.png"]


def sweep_tables(name):
    """The cell table and the threshold fits of sweep ``name``."""
    return [table(f"{name}_cells.csv"), table(f"{name}_thresholds.csv")]


def sweep_of_figure(config, stem):
    """The sweep whose phase figure has file stem ``stem`` (stems are unique: checked)."""
    return next(name for name, spec in config["sweeps"].items() if spec["figure"] == stem)


def _scan_activations(config):
    return sorted(config.get("spectral_threshold", {}).get("delta", {}))


def spectral_threshold_inputs(config, w):
    """The plateau cells of the spectral-threshold scan, per activation (``cells_<activation>``)."""
    activations = config.get("spectral_threshold", {}).get("delta", {})
    return {f"cells_{a}": jobs.outputs(config, "spectral_threshold_cell", activation=a) for a in activations}


def prediction_inputs(config, sweep):
    """The prediction tables a figure of ``sweep`` draws, if an ``escape.prediction`` model names it."""
    predicted = {spec["sweep"] for spec in config["escape"]["prediction"]["models"].values()}
    files = {"prediction": ESCAPE_PREDICTION, "delta50": DELTA50_PREDICTION}
    return {name: table(file) for name, file in files.items()} if sweep in predicted else {}


def theory_inputs(config):
    """Every theory model's DMFT solves and fixed point, and its referee's cells."""
    rules = {"dmft": "dmft_model", "fixed_point": "fixed_point_model", "sim": "theory_sim_cell"}
    return {name: jobs.outputs(config, rule) for name, rule in rules.items()}


def claim_tables(config):
    """The file names of the tables the claims read: every one of a table they read whole, and of a
    per-sweep table the one of the sweep their role key names (``claims.sweeps``)."""
    out = []
    for t in (t for rule in RESULT_RULES for t in rule.tables):
        if t.claims is True:
            out += t.names(config)
        elif t.claims and t.names(config):
            out.append(t.name.format(sweep=config["claims"]["sweeps"][t.claims]))
    return out


def claim_roles(config):
    """Which sweeps and models of ``config`` each claim reads: the GeLU and Quad sweeps by their role
    keys (``claims.sweeps``), Fig 1's spectral sweep, each width group's narrowest and widest sweep,
    the Hessian activations, and the theory model of each activation (``theory.hessian_overlay``)."""
    overlay = config["theory"]["hessian_overlay"]
    return {
        "gelu": config["claims"]["sweeps"]["gelu"],
        "quad": config["claims"]["sweeps"]["quad"],
        "gelu_spectral": config["figure1"]["spectral"],
        "width": [(group[0], group[-1]) for group in config["width"]["groups"].values()],
        "hessian": list(config["hessian"]["delta"]),
        "theory_gelu": overlay.get("gelu"),
        "theory_quad": overlay.get("quad"),
        "easy_hard_table": f"{config['easy_hard']['stem']}_learning_steps.csv",
    }


def claims_inputs(config):
    """The results the claims read: their tables (:func:`claim_tables`) and the first long run."""
    return {
        "tables": [table(name) for name in claim_tables(config)],
        "grokking": f"{RESULTS}/grokking/{next(iter(config['grokking']))}.npz",
    }


def design_sweeps(config):
    """{design: sweep} of the sweeps that name a design (``sweeps.<name>.design``)."""
    return {spec["design"]: name for name, spec in config["sweeps"].items() if "design" in spec}


def finite_size_inputs(config, w):
    """Per model its sweep's cell table; the theory thresholds for delta_NN(inf)."""
    models = config["finite_size"]["models"]
    out = {f"cells_{m}": sweep_tables(spec["sweep"])[0] for m, spec in models.items()}
    return out | {"theory": table(THEORY_THRESHOLDS)}


# --- param sources: (config, wildcards) -> (value, origin) -------------------------------------------


def canonical_key(key):
    """The config value at ``key`` (a dict), with sorted keys (:func:`canonical`)."""
    return lambda config, w: (canonical(typed.lookup(config, key)[0]), key)


def _optional_canonical(key):
    """The config value at the dotted ``key`` with sorted keys (:func:`canonical`), or {} from no key
    where the config lacks it (an overlay's section)."""

    def source(config, w):
        value = section_of(config, key)
        return (canonical(value), key) if value else ({}, None)

    return source


def _settings(rule, names):
    """The settings of each job of compute rule ``rule`` named by ``names(config)`` ({name: its
    wildcards}), as {name: dict}, with the union of their origins."""

    def source(config, w):
        built = {name: jobs.settings_of(rule, config, **cell) for name, cell in names(config).items()}
        keys = typed.origin_keys(s.origin.get(n) for s in built.values() for n in s.field_names())
        return {name: s.asdict() for name, s in built.items()}, tuple(sorted(keys))

    return source


def _theory_models(config):
    return {m: {"model": m} for m in sorted(config["theory"]["models"])}


THEORY_MODELS = _settings("dmft_model", _theory_models)
"""Each theory model's settings (as its jobs read them), sorted by name."""


def _n_paths(config, w):
    """Each theory model's main number of DMFT paths (``jobs.main_n_paths``)."""
    models = sorted(config["theory"]["models"])
    keys = [
        f"theory.models.{m}.n_paths" if "n_paths" in config["theory"]["models"][m] else "theory.n_paths"
        for m in models
    ]
    return {m: jobs.main_n_paths(config, m) for m in models}, tuple(sorted(set(keys)))


def _key_set(section):
    """The sorted keys of a config mapping: from no leaf value (an edit of one adds or removes jobs)."""

    return lambda config, w: (sorted(section_of(config, section) or {}), None)


def _prediction_settings(kind):
    return _settings(f"escape_{kind}_cell", lambda c: {m: {"model": m} for m in c["escape"][kind]["models"]})


def _design_settings(config, w):
    """Each design's settings (as its theory job reads them), for the design table's columns."""
    names = config.get("design", {}).get("designs", {})
    return _settings("design_theory", lambda c: {d: {"design": d} for d in names})(config, w)


def _design_swept(config, w):
    swept = design_sweeps(config)
    return swept, tuple(f"sweeps.{name}.design" for name in swept.values())


def _finite_size_grids(config, w):
    """{sweep: {d: the δ run at d}} of the finite-size models' sweeps (``settings.sweep_deltas``)."""
    sweeps = sorted({spec["sweep"] for spec in config["finite_size"]["models"].values()})
    grids, keys = {}, set()
    for s in sweeps:
        spec = config["sweeps"][s]
        grids[s] = {d: list(typed.sweep_deltas(config, s, d)) for d in spec["d"]}
        keys |= {f"sweeps.{s}.d"} | {
            f"sweeps.{s}.delta_at.{d}" if d in spec.get("delta_at", {}) else f"sweeps.{s}.delta"
            for d in spec["d"]
        }
    return grids, tuple(sorted(keys))


def _finite_size_pricing(config, w):
    """Per finite-size model, what prices new cells of its sweep (``resources.sweep_core_hours``):
    the sweep's dtype, step budget and width, and ``budget_scale_d``; and its test samples, for the
    memory per job (``resources.gd_cell_mem_mb``)."""
    out, keys = {}, {"budget_scale_d"}
    for model, spec in config["finite_size"]["models"].items():
        s = jobs.settings_of("sweep_block", config, sweep=spec["sweep"])
        out[model] = {
            "dtype": s.dtype,
            "steps": s.steps,
            "m": s.m,
            "budget_scale_d": config["budget_scale_d"],
        }
        out[model]["n_test"] = s.n_test
        names = ["dtype", "steps", "m", "n_test"]
        if str(s.origin.get("steps")).startswith(f"{typed.ACTIVATION_TABLES['steps']}."):
            names.append("activation")  # a step budget from the activation's table: which row is read
        keys |= typed.origin_keys(s.origin.get(name) for name in names)
    return canonical(out), tuple(sorted(keys))


def _phase_title(config, w):
    s = jobs.settings_of("sweep_block", config, sweep=sweep_of_figure(config, w["stem"]))
    return f"{s.activation}, y = {s.link}", (s.origin["activation"], s.origin["link"])


def _widths(config, w):
    names = [name for group in config["width"]["groups"].values() for name in group]
    built = {name: jobs.settings_of("sweep_block", config, sweep=name) for name in names}
    return {name: s.m for name, s in built.items()}, tuple(
        sorted({s.origin.get("m") for s in built.values()} - {None})
    )


def _conventions(config, w):
    """Each convention's keys, every one filled in (``settings.convention_keys``)."""
    grid = config["conventions"]["grid"]
    keys = {f"conventions.grid.{name}" for name in grid}
    keys |= {
        f"defaults.{k}"
        for spec in grid.values()
        for k in ("link", "loss_normalisation", "a", "b", "r0")
        if k not in spec
    }
    return {name: typed.convention_keys(config, name) for name in grid}, tuple(sorted(keys))


def _claim_roles(config, w):
    """Which sweeps and models each claim reads (:func:`claim_roles`)."""
    roles = canonical(claim_roles(config))
    overlay = [
        f"theory.hessian_overlay.{a}" for a in ("gelu", "quad") if a in config["theory"]["hessian_overlay"]
    ]
    ends = [
        f"width.groups.{g}.{i}" for g, group in config["width"]["groups"].items() for i in {0, len(group) - 1}
    ]
    keys = ("claims.sweeps.gelu", "claims.sweeps.quad", "figure1.spectral", "easy_hard.stem", *ends, *overlay)
    return roles, keys


THEORY_KINDS = {
    "fig9_dmft_vs_simulation": "dmft_vs_simulation",
    "fig10a_outlier_vs_time": "outlier_vs_time",
    "fig10b_delta_nn": "delta_nn",
}
"""Which theory figure a ``theory_figure`` job draws."""


def _theory_kind(config, w):
    return THEORY_KINDS[w["stem"]], None


def _delta_max(config, w):
    """The largest δ of the spectral scan, from its own entry of ``spectral.delta``."""
    deltas = config["spectral"]["delta"]
    return max(deltas), f"spectral.delta.{deltas.index(max(deltas))}"


_OVERLAY = {
    "theory": canonical_key("theory.hessian_overlay"),
    "activations": _key_set("spectral_threshold.delta"),
}
"""The scan's activations and the theory models they are compared with (``theory.hessian_overlay``)."""
_THEORY = {"models": THEORY_MODELS, "n_paths": _n_paths}


# --- jobs and constraints ----------------------------------------------------------------------------


def _per(section, wildcard):
    """One job per key of the config mapping ``section``, that key as ``wildcard``."""
    return lambda config: [{wildcard: name} for name in typed.lookup(config, section)[0]]


def _when(section):
    """One job where the config has ``section`` (a dotted path), none without it."""
    return lambda config: [{}] if section_of(config, section) else []


def figure(rule, figures=(), stems=None, **fields):
    """A rule drawing one figure per job (:data:`PER_STEM`): each stem of its ``figures`` in the
    config, or each of ``stems(config)``."""
    stems = stems or (lambda config: [s for f in figures for s in f.stems(config)])
    return ResultRule(
        rule=rule, what="Drawing {wildcards.stem}", log="figures/{stem}", figures=figures,
        outputs=(PER_STEM,), jobs=lambda config: [{"stem": s} for s in stems(config)],
        constraints=lambda config: {"stem": "|".join(stems(config)) or "^$"}, **fields,
    )  # fmt: skip


def phase_figures(config):
    """The sweeps' phase figures, one per sweep: its stem ``sweeps.<name>.figure``, the paper figure
    ``sweeps.<name>.paper``."""
    return [
        FigureEntry(
            stem=spec["figure"],
            caption=f"Success rate and final ρ vs δ per d, sweep {name}.",
            paper=spec.get("paper", ""),
            rule="phase_figure",
        )
        for name, spec in config["sweeps"].items()
    ]


def _prediction_rule(*, rule, what, level, **fields):
    """The rule ``escape_<kind>_table`` comparing ``escape.<kind>``'s predictions with the sweeps: per
    model its cells, its sweep's cell table and fits; its tables and the figure
    ``extra_escape_<kind>``; the models' settings and the level its script reads them at."""
    kind = rule.removeprefix("escape_").removesuffix("_table")

    def inputs(config, w):
        out = {}
        for model, spec in config["escape"][kind]["models"].items():
            out[f"cells_{model}"] = jobs.outputs(config, f"escape_{kind}_cell", model=model)
            out[f"sweep_{model}"], out[f"fits_{model}"] = sweep_tables(spec["sweep"])
        return out | {"theory": THEORY_TABLE}

    return ResultRule(
        rule=rule,
        what=f"{what}: tables and figure",
        inputs=inputs,
        log=f"escape/{kind}_table",
        params={
            "models": canonical_key(f"escape.{kind}.models"),
            "settings": _prediction_settings(kind),
            "tolerance": "escape.prediction.tolerance",
            "level": typed.fixed(level),
        },
        jobs=lambda config: [{}] if config["escape"].get(kind) else [],
        local=False,
        **fields,
    )


# --- the rules ---------------------------------------------------------------------------------------

THEORY_TABLE = table(THEORY_THRESHOLDS)


def _fixed_points_compared(config, w):
    """The fixed points the scan's activations are compared with (``theory.hessian_overlay``)."""
    overlay = config["theory"]["hessian_overlay"]
    return [
        f"{RESULTS}/theory/fixed_point/{overlay[a]}.npz" for a in _scan_activations(config) if a in overlay
    ]


def _phase_theory(config, sweep):
    """What draws threshold lines on ``sweep``'s phase figure, with the config keys it is read from:
    the finite-size model that names the sweep (its theory model and the paper's value) and the
    ``escape.finite_n`` model that predicts it.  Returns ({"theory", "paper", "finite_n"}, origins)."""
    models = (config.get("finite_size") or {}).get("models", {})
    naming = [m for m, spec in models.items() if spec.get("sweep") == sweep]
    if len(naming) > 1:  # the config check rejects it (checks.one_model_per_sweep)
        raise ValueError(f"sweep {sweep!r} is that of several finite-size models: {naming}")
    named = naming[0] if naming and models[naming[0]].get("theory") else None
    value, origins = {"theory": None, "paper": None, "finite_n": False}, []
    if named:
        spec = models[named]
        value["theory"] = spec["theory"]
        origins += [f"finite_size.models.{named}.sweep", f"finite_size.models.{named}.theory"]
        if spec.get("paper"):
            value["paper"] = config["claims"]["paper"][spec["paper"]]
            origins += [f"finite_size.models.{named}.paper", f"claims.paper.{spec['paper']}"]
    finite_n = (config.get("escape") or {}).get("finite_n") or {"models": {}}
    predicting = [m for m, spec in finite_n["models"].items() if spec["sweep"] == sweep]
    if predicting:
        value["finite_n"] = True
        origins += [f"escape.finite_n.models.{m}.sweep" for m in predicting]
    return value, origins


def _phase_inputs(config, w):
    sweep = sweep_of_figure(config, w["stem"])
    lines, _ = _phase_theory(config, sweep)
    out = prediction_inputs(config, sweep) | dict(
        zip(("cells", "thresholds"), sweep_tables(sweep), strict=True)
    )
    if lines["theory"]:
        out["theory"] = THEORY_TABLE
    if lines["finite_n"]:
        out["finite_n"] = table(DELTA50_FINITE_N)
    return out


def phase_lines(config):
    """{sweep: (the ``lines`` param of its phase figure, the config keys it reads)}: ``_phase_theory``
    of the sweep, its figure's stem and, where a prediction is drawn, the main ρ_c (the manuscript
    reads the values too, to name the lines each figure draws)."""
    out = {}
    for name, spec in config["sweeps"].items():
        value, origins = _phase_theory(config, name)
        value, origins = value | {"stem": spec["figure"]}, [*origins, f"sweeps.{name}.figure"]
        if value["finite_n"]:
            value["rho_c"] = config["escape"]["prediction"]["rho_c"][0]
            origins.append("escape.prediction.rho_c.0")
        out[name] = (value, tuple(origins))
    return out


def _phase_lines(config, w):
    return phase_lines(config)[sweep_of_figure(config, w["stem"])]


def _spectral_figure_inputs(config, w):
    random, spectral = config["figure1"]["random"], config["figure1"]["spectral"]
    return prediction_inputs(config, random) | {
        **dict(
            zip(
                ("random_cells", "random_fits", "spectral_cells", "spectral_fits"),
                sweep_tables(random) + sweep_tables(spectral),
                strict=True,
            )
        ),
        "overlaps": [f"{RESULTS}/spectral/overlap_d{d}.csv" for d in config["spectral"]["d"]],
        "theory": table(SPECTRAL_THEORY),
        "delta_alg": table(DELTA_ALG),
    }


def _width_inputs(config, w):
    names = [s for group in config["width"]["groups"].values() for s in group]
    return {"cells": [sweep_tables(s)[0] for s in names], "fits": [sweep_tables(s)[1] for s in names]}


def _cells_of(rule, **match):
    """Inputs ``cells``: the outputs of the compute jobs of ``rule`` (``match``: config-dependent
    wildcard values, ``(config, w) -> value``)."""
    return lambda config, w: {
        "cells": jobs.outputs(config, rule, **{k: f(config, w) for k, f in match.items()})
    }


# The rules, in the order of the results index (the order of their tables), each with the tables and
# figures it writes.
# fmt: off
RESULT_RULES = (
    # cell summaries and threshold fits
    ResultRule(
        rule="threshold_table", script="threshold_table", what="Collecting the threshold table",
        inputs=lambda config, w: {
            # the k = 2 easy+hard sweep has no single-direction transition: it has its own table
            "sweeps": [sweep_tables(s)[1] for s in config["sweeps"] if s != config["easy_hard"]["sweep"]],
            "delta_alg": table(DELTA_ALG)},
        log="threshold_table",
        resources={"mem_mb": 500, "runtime": 5},
        tables=(
            TableEntry(name=THRESHOLDS, target=True, claims=True,
                       caption="Empirical δ₅₀ ± 1σ and its 95 % profile interval per sweep and d (logistic "
                       "fit), and δ_alg per link."),
        ),
    ),
    ResultRule(
        rule="aggregate_sweep", script="aggregate_sweep",
        what="Summarising sweep {wildcards.sweep} and fitting its thresholds",
        inputs=_cells_of("sweep_block", sweep=lambda c, w: w["sweep"]),  # the blocks of every cell
        log="aggregate/{sweep}", jobs=_per("sweeps", "sweep"),
        constraints=lambda config: {"sweep": "|".join(config["sweeps"])},
        tables=(
            TableEntry(name="{sweep}_cells.csv", output="cells", claims="gelu",
                       caption="Per (d, δ) cell of one sweep: successes, final-ρ median and 30/70 % "
                       "quantiles (all and failed trials), escape-step quartiles, trials stopped at a "
                       "certified minimum."),
            TableEntry(name="{sweep}_thresholds.csv", output="thresholds",
                       caption="Per d of one sweep: the logistic fit of success vs δ (δ₅₀, scale, errors, "
                       "δ₅₀'s profile interval, status)."),
        ),
    ),
    # the optimal spectral method (no GD): theory curve and delta_alg
    ResultRule(
        rule="spectral_theory", script="spectral_theory",
        what="Asymptotic spectral overlap curve and delta_alg per link",
        log="spectral/theory",
        params={"link": "spectral.link", "noise": "spectral.noise", "delta_max": _delta_max,
                "points": "spectral.theory_points"},
        tables=(
            TableEntry(name=DELTA_ALG, output="delta_alg", claims=True,
                       caption="δ_alg of the optimal spectral method per single-index link."),
            TableEntry(name=SPECTRAL_THEORY, output="curve",
                       caption="Asymptotic overlap of the optimal spectral estimator vs δ."),
        ),
    ),
    # the Hessian at the restricted-GD plateau (docs/outlier.md)
    ResultRule(
        rule="hessian_table", script="hessian_table",
        what="Collecting the plateau spectra of {wildcards.activation}",
        inputs=_cells_of("hessian_cell", activation=lambda c, w: w["activation"]),
        log="hessian/table_{activation}",
        jobs=_per("hessian.delta", "activation"),
        tables=(
            TableEntry(name="hessian_{activation}.csv", claims=True,
                       caption="Per δ and seed at the restricted-GD plateau: λ_min, overlap², bulk edge, "
                       "H₁₁, the semi-empirical outlier."),
        ),
    ),
    ResultRule(
        rule="easy_hard_figure", script="plot_easy_hard", what="Drawing easy vs hard direction learning",
        inputs=_cells_of("sweep_block", sweep=lambda c, w: c["easy_hard"]["sweep"]),
        log=lambda config: f"figures/{config['easy_hard']['stem']}",
        params={"level": "easy_hard.learned_overlap"},
        tables=(
            TableEntry(name="{easy_hard}_learning_steps.csv", output="table", claims=True,
                       caption="Per trial of the easy+hard target: the step at which each direction is "
                       "learned."),
        ),
        figures=(
            FigureEntry(stem="{stem}", paper="Fig 11", section="easy_hard",
                        caption="Overlap of span(Θ) (top) and of the best neuron (bottom) with the easy and"
                        " the hard direction vs GD step."),
        ),
    ),
    # theory (DMFT, outlier, static fixed point) against its simulated referee
    ResultRule(
        rule="theory_tables", script="theory_tables",
        what="Theory thresholds and theory-vs-simulation agreement tables",
        inputs=lambda config, w: theory_inputs(config) | {"thresholds": table(THRESHOLDS)},
        log="theory/tables",
        params={**_THEORY, "report_steps": "theory.report_steps", "horizon": "theory.horizon",
                "validation": canonical_key("theory.validation")},
        tables=(
            TableEntry(name=THEORY_THRESHOLDS, target=True, claims=True,
                       caption="δ_alg, δ_NN(t) from the DMFT for each N, the long-time δ_NN(∞) with its "
                       "numerical error and the RS state's AT verdict, and the empirical δ₅₀ per theory "
                       "model."),
            TableEntry(name=FIXED_POINT_REFINEMENT, target=True,
                       caption="The refinement study of δ_NN(∞): per theory model and quadrature level "
                       "(every count doubled), the root and the fixed point's κ, q, E[ℓ], AT value, jump "
                       "mass, bulk edge, outlier, overlap² and margin at the coarser level's root."),
            TableEntry(name="theory_thresholds.tex", target=True,
                       caption="The theory thresholds as a LaTeX table."),
            TableEntry(name=DMFT_VS_SIMULATION, target=True, claims=True,
                       caption="‖θ‖², train loss and H₁₁ along restricted GD: DMFT vs simulation."),
            TableEntry(name=OUTLIER_VS_SIMULATION, target=True,
                       caption="Hessian outlier and bulk edge vs GD time: DMFT law vs simulated spectra."),
            TableEntry(name=BOUNDED_LINK_VALIDATION, target=True,
                       caption="Bounded link: the δ at which simulation first shows a negative aligned "
                       "outlier vs the DMFT's δ_NN(t)."),
        ),
    ),
    # the escape (docs/escape.md): the hard coordinate's linear stage, the DMFT with signal, and the
    # success they predict
    ResultRule(
        rule="escape_linear_table", script="escape_linear_table",
        what="Linear stage of the escape: theory vs simulation table and figure",
        inputs=_cells_of("escape_linear_cell"),
        log="escape/linear_table", params={"report_steps": "escape.report_steps"},
        tables=(
            TableEntry(name=ESCAPE_LINEAR_STAGE, output="table", target=True,
                       caption="The hard coordinate's variance: linear process vs unrestricted GD and its "
                       "exact linearisation, with the referee's linear horizon."),
            TableEntry(name=ESCAPE_REFEREE_TRIALS, output="referee",
                       caption="The referee trial by trial: the hard coordinate of unrestricted GD and of "
                       "its exact linearisation from the same seed, their relative error and the trial's "
                       "linear horizon."),
        ),
        figures=(
            FigureEntry(stem="extra_escape_linear_stage",
                        caption="Variance of the hard coordinate √d θ₁^t: the linear Gaussian process of "
                        "the DMFT kernels vs unrestricted GD and its exact linearisation (docs/escape.md, "
                        "eqs. (E5), (E7))."),
        ),
    ),
    ResultRule(
        rule="escape_anatomy_table", script="escape_anatomy_table",
        what="The escape's anatomy, trial by trial: table and figure",
        inputs=_cells_of("escape_anatomy_cell"), log="escape/anatomy_table", jobs=_when("escape_anatomy"),
        tables=(
            TableEntry(name=ESCAPE_ANATOMY, output="table", target=True, section="escape_anatomy",
                       caption="Per (sweep, d, δ), the sweep's own trials followed step by step: "
                       "escape steps, the restricted run's plateau step, the share of successful and "
                       "failed trials with an aligned negative Hessian eigenvalue before escape, the "
                       "aligned window, ρ at its end, the growth left undriven, localisation, what seeds "
                       "the escape (runs from u⁰ = 0 and from a fresh start, the data's |z₁|), and the "
                       "mechanism the cell supports (docs/escape.md, (E13)-(E18))."),
            TableEntry(name=ESCAPE_ANATOMY_VERDICT, output="verdict", target=True,
                       section="escape_anatomy",
                       caption="Per sweep, every anatomy cell's trials pooled: the share of trials each "
                       "reading (i)-(vi) describes, with its likelihood interval, the chance agreement "
                       "and the |z₁| separation, and the verdict (supported, excluded) on the mechanism "
                       "(docs/escape.md, (E16c)-(E18))."),
        ),
        figures=(
            FigureEntry(stem="extra_escape_anatomy", section="escape_anatomy",
                        caption="The escape, trial by trial: ρ and the most negative aligned Hessian "
                        "eigenvalue of each trial (successes blue, failures grey) in the cell nearest half "
                        "success (the largest d among ties), and per cell the share of trials with an "
                        "aligned negative eigenvalue before escape (docs/escape.md, (E13)-(E18))."),
        ),
    ),
    ResultRule(
        rule="escape_finite_n_table",
        script="escape_finite_n_table",
        what="Predicted from the finite system's early window: tables",
        inputs=_cells_of("escape_finite_n_cell"), log="escape/finite_n_table", jobs=_when("escape.finite_n"),
        params={"models": canonical_key("escape.finite_n.models"), "seed": "seed"},
        tables=(
            TableEntry(name=ESCAPE_FINITE_N, output="table", target=True, section="escape.finite_n",
                       caption="Per (model, d, δ, ρ_c), the success probability predicted from the finite "
                       "system's early window, mean ± s.e. over DMFT path sets of N = δd paths, by three "
                       "readings: the linear process to the window's end, the aligned growth exponent, the "
                       "linear process while the curvature along θ* is negative; the window's median end "
                       "and the share of Var(u) at its end that u⁰ seeds (docs/escape.md, (E19)-(E22))."),
            TableEntry(name=DELTA50_FINITE_N, output="delta50", target=True, section="escape.finite_n",
                       claims=True,
                       caption="Per (model, d, reading, ρ_c), δ₅₀(d) predicted from the early window, with "
                       "its bootstrap interval over path sets and its value from half of them "
                       "(docs/escape.md, (E22))."),
        ),
    ),
    ResultRule(
        rule="escape_finite_n_compare",
        script="escape_finite_n_compare",
        what="Predicted from the early window vs GD's measured delta50(d): table and figure",
        inputs=lambda config, w: {"predicted": table(DELTA50_FINITE_N),
                                  "points": table(FINITE_SIZE_POINTS)},
        log="escape/finite_n_compare", jobs=_when("escape.finite_n"),
        params={"rho_c": "escape.prediction.rho_c", "finite_size": canonical_key("finite_size.models")},
        tables=(
            TableEntry(name=DELTA50_FINITE_N_VS_GD, output="table", target=True,
                       section="escape.finite_n",
                       caption="Per (model, d, reading, ρ_c), δ₅₀(d) predicted from the early window beside "
                       "GD's measured δ₅₀(d) (the sweeps' fits), with the verdict (within two combined "
                       "standard errors) and the gap (docs/escape.md, (E23))."),
        ),
        figures=(
            FigureEntry(stem="extra_escape_finite_n", section="escape.finite_n",
                        caption="GD's measured δ₅₀(d) (black) and δ₅₀(d) predicted from the finite system's "
                        "early window by three readings, at the main ρ_c, per model (docs/escape.md, "
                        "(E19)-(E23)); an arrow marks an interval open upwards."),
        ),
    ),
    ResultRule(
        rule="escape_signal_table", script="escape_signal_table",
        what="DMFT with signal vs planted-overlap GD: table",
        inputs=_cells_of("escape_signal_cell"),
        log="escape/signal_table", params={"report_steps": "escape.report_steps"}, local=False,
        tables=(
            TableEntry(name=ESCAPE_SIGNAL, output="table", target=True,
                       caption="DMFT with signal (d = ∞, and with its finite-d fluctuation) vs unrestricted"
                       " GD from a planted overlap."),
            TableEntry(name=ESCAPE_SIGNAL_RUNS, output="runs",
                       caption="Per planted run: the final overlap, and ‖∇R̂‖ and λ_min where it ends."),
        ),
    ),
    _prediction_rule(
        rule="escape_prediction_table", script="escape_prediction_table",
        what="Predicted vs measured success and delta50(d)", level="rho_c",
        tables=(
            TableEntry(name=ESCAPE_PREDICTION, output="table", target=True,
                       caption="Predicted (linear process) vs measured success, escape steps and failed-"
                       "trial ρ per model, d, δ and ρ_c."),
            TableEntry(name=DELTA50_PREDICTION, output="delta50", target=True,
                       caption="Predicted vs empirical δ₅₀ per model and d, with the verdict."),
        ),
        figures=(
            FigureEntry(stem="extra_escape_prediction",
                        caption="GD success vs δ per d with the success probability predicted by the linear"
                        " hard-coordinate process, and δ₅₀ vs d: measured, predicted, and δ_NN(∞) as the d "
                        "→ ∞ reference."),
        ),
    ),
    # finite-size analysis of the GD thresholds (docs/finite_size.md): delta50(d) per model, the laws of
    # its growth by the joint likelihood of every cell, what they decide about d -> inf
    ResultRule(
        rule="finite_size_scaling",
        script="finite_size_scaling",
        what="Finite-size analysis of the sweeps' thresholds: joint-likelihood laws, profiles, bootstrap, "
        "figure",
        inputs=finite_size_inputs,
        log="finite_size/scaling",
        params={"models": canonical_key("finite_size.models"),
                **{k: f"finite_size.{k}" for k in ("bootstrap", "level", "limit_range", "min_d")},
                "pricing": _finite_size_pricing, "seed": "seed", "paper": canonical_key("claims.paper")},
        tables=(
            TableEntry(name=FINITE_SIZE_SUMMARY, output="summary", claims=True,
                       caption="Per model: what its d decide (joint binomial likelihood, 95 % profile "
                       "intervals): the slope per doubling of d, the curvature, the width exponent, the "
                       "tests of a constant and of no limit, δ₅₀ at the largest d with its interval, whether "
                       "the power and log laws identify δ∞ (conditional on them; no number), and the "
                       "bootstrap's law choice."),
            TableEntry(name=FINITE_SIZE_SCALING, output="table", target=True, claims=True,
                       caption="Per model and law of δ₅₀(d): the joint-likelihood fit, AICc, the nested "
                       "likelihood-ratio p-value, the constant's level where it is not rejected, and the "
                       "prediction of the largest d (no law's δ∞)."),
            TableEntry(name=FINITE_SIZE_POINTS, output="points", claims=True,
                       caption="Per model and d: δ₅₀ ± s.e. with its profile interval, and the transition "
                       "width from the logistic fit."),
            TableEntry(name=FINITE_SIZE_COLLAPSE, output="collapse",
                       caption="Per model and cell: the success fraction against x = (δ − δ₅₀(d))/w(d), the"
                       " collapse of every d onto one logistic."),
            TableEntry(name=FINITE_SIZE_DECIDE, output="decide",
                       caption="Per model and design (new doublings of d, trials per cell): the expected "
                       "separation of 'δ∞ = δ_NN(∞)' and 'growth ∝ log d' under each, and its core-hours "
                       "(upper bound).",
                       empty="No model has both finite_size.min_d measured d and a δ_NN(∞): the two "
                       "readings (F13) are not fitted."),
        ),
        figures=(
            FigureEntry(stem="{stem}", section="finite_size",
                        caption="δ₅₀ against d (log axis) per model with its 95 % profile intervals, each "
                        "law fitted by the joint likelihood, δ_NN(∞) of the static fixed point and the "
                        "paper's value, one key below the panels; each title says whether the power and "
                        "log laws identify δ∞."),
        ),
    ),
    ResultRule(
        rule="finite_size_refine",
        script="finite_size_refine",
        what="Second-pass delta placement around each d's crossing (an overlay, built on request)",
        inputs=finite_size_inputs, outputs=((None, FILE, f"{RESULTS}/finite_size/refine.yaml"),),
        log="finite_size/refine",
        params={"models": canonical_key("finite_size.models"), "refine": canonical_key("finite_size.refine"),
                "grids": _finite_size_grids},
    ),
    # the plateau's spectral threshold and the plateau against the fixed point (docs/outlier.md)
    ResultRule(
        rule="spectral_threshold_table",
        script="spectral_threshold_table",
        what="The plateau's spectral threshold delta_spec(d) per activation (docs/finite_size.md, (F14))",
        inputs=lambda config, w: spectral_threshold_inputs(config, w) | {"theory": THEORY_TABLE},
        log="hessian/spectral_threshold", params=_OVERLAY,
        tables=(
            TableEntry(name=SPECTRAL_THRESHOLD, target=True, section="spectral_threshold",
                       caption="Per activation and d: δ_spec(d), where the share of plateau seeds with a "
                       "negative aligned Hessian eigenvalue crosses ½ (logistic fit, profile interval), the"
                       " zero crossing of λ_min against δ (line or quadratic, Fieller's interval), and "
                       "δ_NN(∞)."),
        ),
    ),
    ResultRule(
        rule="plateau_theory_table",
        script="plateau_theory_table",
        what="The plateau against the fixed point per observable as d -> inf, and the plateau's own "
        "threshold (docs/outlier.md, (O19)-(O21))",
        inputs=lambda config, w: spectral_threshold_inputs(config, w) | {
            "spectral": table(SPECTRAL_THRESHOLD), "theory": THEORY_TABLE,
            "fixed_points": _fixed_points_compared(config, w)},
        log="hessian/plateau_theory", params=_OVERLAY,
        tables=(
            TableEntry(name=PLATEAU_VS_THEORY, target=True, section="spectral_threshold",
                       caption="Per activation, δ and observable (‖θ‖², training loss, bulk edge, λ_min, "
                       "its overlap²): the plateau's seed means per d, their limit d → ∞ under each "
                       "approach law m_d = m_∞ + b d^(−γ), γ = 1, 2/3, 1/2, with its 95 % interval and "
                       "goodness of fit, the RS fixed point's value with its numerical error, the gap "
                       "(under 1/d; its interval the union over the laws the data do not reject) and the "
                       "verdict every such law gives, conditional on them (undetermined where they "
                       "differ, with fewer than three d, or where growth in ln d fits; then no level)."),
            TableEntry(name=PLATEAU_THRESHOLD, target=True, section="spectral_threshold",
                       caption="Per activation and d: δ_NN^GD(d), the zero of the outlier margin fed with "
                       "the plateau's own law of (g², w), beside δ_spec(d) and δ_NN^RS(∞), with δ_spec(d)'s"
                       " distance to each approach law's limit in units of their combined s.e.; the last "
                       "row the limit δ_NN^GD(∞), only where three d or more identify it under the laws "
                       "m_∞ + b d^(−γ), γ = 1, 2/3, 1/2 (growth in ln d rejected): the point under 1/d, "
                       "the interval over the laws that the data do not reject; else its status."),
        ),
    ),
    _prediction_rule(
        rule="escape_two_stage_table", what="Two-stage prediction vs measured success and delta50(d)",
        level="t0",
        script="escape_prediction_table",
        tables=(
            TableEntry(name=ESCAPE_TWO_STAGE, output="table", section="escape.two_stage",
                       caption="Two-stage prediction (linear process to t₀, then the kicked DMFT with "
                       "signal) vs measured success per model, d, δ and t₀, with the critical overlap m* "
                       "and V(t₀)."),
            TableEntry(name=DELTA50_TWO_STAGE, output="delta50", target=True,
                       section="escape.two_stage",
                       caption="Two-stage predicted vs empirical δ₅₀ per model, d and t₀, with the verdict."),
            TableEntry(name=ESCAPE_TWO_STAGE_SCANS, output="scans", section="escape.two_stage",
                       caption="The kick scans of the DMFT with signal: ρ at the horizon and escape step per "
                       "δ, t₀ and m₀."),
        ),
        figures=(
            FigureEntry(stem="extra_escape_two_stage", section="escape.two_stage",
                        caption="GD success vs δ per d with the two-stage prediction (linear process to t₀,"
                        " then the DMFT with signal kicked at t₀) per t₀, and δ₅₀ vs d (overlay "
                        "escape_two_stage.yaml)."),
        ),
    ),
    # the convention explorer (overlay workflow/configs/conventions.yaml): which modelling conventions
    # reproduce the paper's three headline numbers; nothing runs without `conventions:`
    ResultRule(
        rule="convention_table",
        script="convention_table",
        what="Conventions ranked against the paper's three numbers: table and figure",
        inputs=lambda config, w: {"scans": jobs.outputs(config, "convention_scan"),
                                  "plateaus": jobs.outputs(config, "convention_plateau")},
        log="conventions/table", jobs=_when("conventions"),
        params={"conventions": _conventions, "paper": _optional_canonical("conventions.paper"),
                "tolerance": _optional_canonical("conventions.tolerance")},
        tables=(
            TableEntry(name=CONVENTIONS, output="table", target=True, section="conventions",
                       caption="Modelling conventions ranked by their distance to the paper's three "
                       "numbers."),
            TableEntry(name=CONVENTION_SCANS, output="scans", section="conventions",
                       caption="Per convention, activation and d: the auto-refined δ scan and its fit."),
        ),
        figures=(
            FigureEntry(stem="extra_conventions", section="conventions",
                        caption="δ₅₀ of GeLU against δ₅₀ of Quad for each modelling convention (convention "
                        "explorer overlay), with the paper's point."),
        ),
    ),
    # the designer (docs/design.md, overlay workflow/configs/design.yaml): the sweeps the theory asks for
    # (read from the theory alone, so pass 2 does not rewrite them) and the design table
    ResultRule(
        rule="design_sweeps",
        script="design_sweeps",
        what="The GD sweeps the theory asks for: its best and worst designs and the included ones "
        "(an overlay for pass 2)",
        inputs=lambda config, w: {"theory": jobs.outputs(config, "design_theory")},
        outputs=((None, FILE, f"{RESULTS}/design/design_sweeps.yaml"),), log="design/sweeps",
        params={"design": _optional_canonical("design"), "settings": _design_settings}, jobs=_when("design"),
    ),
    ResultRule(
        rule="design_table", script="design_table", what="Design table and figure",
        inputs=lambda config, w: {
            "theory": jobs.outputs(config, "design_theory"), "family": jobs.outputs(config, "design_family"),
            "thresholds": [sweep_tables(sweep)[1] for sweep in design_sweeps(config).values()]},
        log="design/table", jobs=_when("design"),
        params={"design": _optional_canonical("design"), "settings": _design_settings,
                "swept": _design_swept},
        tables=(
            TableEntry(name=DESIGN, output="table", target=True, section="design",
                       caption="Per design (and the family's minimiser): δ_alg, δ_NN(∞) with its AT value, "
                       "min_t δ_NN(t) ± s.e., GD's δ₅₀ per d where swept, the theory's rank."),
        ),
        figures=(
            FigureEntry(stem="{stem}", section="design",
                        caption="Per design: the theory's δ_NN(∞) (static fixed point) and min_t δ_NN(t) "
                        "(DMFT, ± s.e.), and GD's δ₅₀ where a sweep measured the design, with Spearman's "
                        "rank correlation."),
        ),
    ),
    # the figures drawn from tables and cells, one per job
    figure("phase_figure", script="plot_phase",
           inputs=_phase_inputs, stems=lambda c: [f.stem for f in phase_figures(c)],
           params={"title": _phase_title, "sweep": lambda c, w: (sweep_of_figure(c, w["stem"]), None),
                   "lines": _phase_lines}),
    figure("grokking_figure", script="plot_grokking",
           inputs=lambda config, w: {"run": f"{RESULTS}/grokking/{w['stem']}.npz"},
           figures=(
               FigureEntry(stem="{name}", paper="Fig 2", section="grokking",
                           caption="Train and test loss and misalignment 1 − ρ along one long GD run (never"
                           " frozen)."),
           )),
    figure("spectral_figure", script="plot_spectral", inputs=_spectral_figure_inputs,
           params={"link": "spectral.link", "sweep": "figure1.random"},
           figures=(
               FigureEntry(stem="{stem}", paper="Fig 1", section="figure1",
                           caption="GD success vs δ from random and from the optimal spectral init, δ_alg, "
                           "and the spectral estimator's overlap vs the asymptotic curve."),
           )),
    figure("hessian_spectrum_figure", script="plot_hessian_spectrum", inputs=lambda config, w: {"cells": [
        f for act, pair in config["hessian"]["histogram"].items() for dl in pair
        for f in jobs.outputs(config, "hessian_cell", activation=act, delta=dl)]},
           figures=(
               FigureEntry(stem="fig7_hessian_spectrum", paper="Fig 7",
                           caption="Bulk histogram and bottom eigenvalue of the Hessian at the restricted-"
                           "GD plateau, below and above the transition."),
           )),
    figure("hessian_delta_figure", script="plot_hessian_delta",
           params={"overlay": canonical_key("theory.hessian_overlay")},
           inputs=lambda config, w: {
               "tables": [table(f"hessian_{a}.csv") for a in config["hessian"]["delta"]],
               "fixed_points": [f"{RESULTS}/theory/fixed_point/{m}.npz"
                                for m in config["theory"]["hessian_overlay"].values()]},
           figures=(
               FigureEntry(stem="fig8_hessian_vs_delta", paper="Fig 8",
                           caption="λ_min, bulk edge and overlap² of the bottom eigenvector vs δ at the "
                           "plateau, with the fixed-point theory."),
           )),
    figure("hessian_trajectory_figure", script="plot_hessian_trajectory", inputs=_cells_of("hessian_cell"),
           figures=(
               FigureEntry(stem="extra_hessian_trajectory",
                           caption="λ_min, bulk edge and overlap² along restricted GD (checkpoints)."),
           )),
    figure("plateau_theory_figure", script="plot_plateau_theory",
           inputs=lambda config, w: {"table": table(PLATEAU_VS_THEORY)},
           figures=(
               FigureEntry(stem="extra_plateau_vs_theory", section="spectral_threshold",
                           caption="The plateau's ‖θ‖², training loss, bulk edge, λ_min and overlap² "
                           "against 1/d at each δ of the spectral-threshold scan, their 1/d extrapolation, "
                           "and the RS fixed point's value at d = ∞."),
           )),
    figure("landscape_figure", script="plot_landscape", inputs=_cells_of("landscape_cell"),
           figures=(
               FigureEntry(stem="{stem}", paper="Fig 3", section="landscape",
                           caption="The empirical risk on planes through the restricted-GD plateau (with "
                           "θ*, and with the Hessian's bottom eigenvector), below and above the transition,"
                           " with unrestricted GD projected: the saddle and the escape along its negative "
                           "curvature."),
           )),
    figure("sweep_escape_steps_figure", script="plot_sweep_escape_steps",
           params={"sweeps": _key_set("sweeps")},  # sorted: order is no change
           inputs=lambda config, w: {"tables": [sweep_tables(name)[0] for name in sorted(config["sweeps"])]},
           figures=(
               FigureEntry(stem="extra_escape_steps",
                           caption="Escape step (first step with ρ ≥ escape_rho) vs δ, median and "
                           "quartiles, per sweep."),
           )),
    figure("theory_figure", script="plot_theory", params={**_THEORY, "kind": _theory_kind}, local=False,
           inputs=lambda config, w: theory_inputs(config) | {  # only the δ_NN figure draws the thresholds
               "table": THEORY_TABLE if THEORY_KINDS[w["stem"]] == "delta_nn" else []},
           figures=(
               FigureEntry(stem="fig9_dmft_vs_simulation", paper="Fig 9",
                           caption="‖θ‖², train loss and H₁₁ along restricted GD: DMFT vs simulation."),
               FigureEntry(stem="fig10a_outlier_vs_time", paper="Fig 10a",
                           caption="Hessian outlier and bulk edge vs GD time: DMFT law vs simulated "
                           "spectra."),
               FigureEntry(stem="fig10b_delta_nn", paper="Fig 10b",
                           caption="δ_NN(t) from the DMFT law for each N, the long-time value and the "
                           "empirical δ₅₀."),
           )),
    figure("width_figure", script="plot_width",
           inputs=_width_inputs, params={"groups": "width.groups", "widths": _widths},
           figures=(
               FigureEntry(stem="{stem}", paper="Fig 6", section="width",
                           caption="Success vs δ per width m, and δ₅₀ vs m."),
           )),
    # the claims table with computed verdicts (the manuscript: paper.smk)
    ResultRule(
        rule="claims_table", script="claims_table", what="The paper's claims against the results: verdicts",
        inputs=lambda config, w: claims_inputs(config),
        log="paper/claims",
        params={"tolerance": canonical_key("claims.tolerance"), "paper": canonical_key("claims.paper"),
                "roles": _claim_roles},  # which sweeps and models each claim reads
        tables=(
            TableEntry(name=CLAIMS, output="table", target=True,
                       caption="The paper's claims, the measured values and the computed verdicts."),
            TableEntry(name=PAPER_CORRESPONDENCE, output="correspondence", target=True,
                       caption="Where the paper's GeLU and Quad thresholds sit: per model, each threshold "
                       "this product computes (δ_NN^RS(∞), min_t δ_NN(t) per N, GD's δ₅₀ per d, the "
                       "finite-d prediction per d) with its interval, and whether the paper's value "
                       "agrees with it."),
        ),
    ),
)
# fmt: on

RESULT_RULE = {r.rule: r for r in RESULT_RULES}


def params_by_output(config):
    """{first output: (params, the config keys they come from)} of every table and figure job of
    ``config`` (the counterpart of ``featlearn.pipeline.jobs.params_by_output``)."""
    return {
        rule.first_output(config, w): rule.params_of(config, w)
        for rule in RESULT_RULES
        for w in rule.jobs(config)
    }
