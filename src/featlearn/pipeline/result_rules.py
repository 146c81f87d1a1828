"""The table and figure rules: each declared once, with what it reads, writes and the config keys its
params come from.

A :class:`ResultRule` (keyword arguments only) says, for one rule computed from stored results:

* ``rule``, ``what`` (its message), ``script`` (``workflow/scripts/<script>.py``; by default
  ``plot_<x>`` for a figure rule ``<x>_figure``, else the rule's name) and ``log`` (the path under
  ``results/logs/`` and ``results/benchmarks/``, a pattern over the wildcards);
* ``inputs``: ``(config, wildcards) -> {name: path or [paths]}``, what it reads besides its code;
* ``outputs``: its figures and other files, ``(name or None, kind, file)`` each, ``kind`` "figure"
  (a stem: its PDF and PNG) or "file" (a path), ``file`` a pattern over the wildcards or ``config ->
  file``, None naming an unnamed output.  Its tables are not listed here: the manifest names the
  rule that writes each (``manifest.tables_of``), so a table's file name is written once, and they
  come first among its outputs;
* ``params``: ``{param: source}``, each source as a compute job's (``settings.resolve``: a config
  key pattern over the wildcards, or ``(config, wildcards) -> (value, origin)``), so that every
  param has its origin: :func:`params_by_output` lists the table and figure jobs as
  ``featlearn.pipeline.jobs.params_by_output`` lists the compute jobs (``tests/test_reruns.py``
  edits every key against both);
* ``jobs``: ``config -> [wildcards]`` of the jobs a config asks for (a figure rule's: one per stem
  the figure manifest gives it, ``featlearn.pipeline.manifest``); ``constraints``: ``config ->
  {wildcard: regex}``; ``local`` (False: sent to the cluster) and ``resources``.

The rules are generated from ``RESULT_RULES`` in ``workflow/rules/results.smk``, which adds the code
stamp input, the report wrappers and the report caption.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from featlearn.pipeline import jobs, manifest
from featlearn.pipeline import settings as typed

RESULTS = "results"
T, F, FILE = "table", "figure", "file"
"""Output kinds: a manifest table (its file name), a figure (its stem), any other file (its path)."""


def canonical(params):
    """A dict with sorted keys, recursively: Snakemake compares params in order, so key order in a
    config file must not make a job look changed."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(params.items())}


def _one_job(config):
    return [{}]


@dataclass(frozen=True, kw_only=True)
class ResultRule:
    rule: str
    what: str
    log: str | Callable
    outputs: tuple = ()
    inputs: Callable = lambda config, w: {}
    params: dict = field(default_factory=dict)
    jobs: Callable = _one_job
    constraints: Callable = lambda config: {}
    script: str = ""
    local: bool = True
    resources: dict = field(default_factory=dict)

    def __post_init__(self):
        default = f"plot_{self.rule.removesuffix('_figure')}" if self.rule.endswith("_figure") else self.rule
        object.__setattr__(self, "script", self.script or default)

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
        """[(name or None, kind, file pattern)]: its manifest tables (``manifest.tables_of``), then its
        own outputs, with the config-dependent files filled in."""
        tables = [(t.output, T, t.pattern(config)) for t in manifest.tables_of(self.rule)]
        own = [(name, kind, file(config) if callable(file) else file) for name, kind, file in self.outputs]
        return tables + own

    def first_output(self, config, w):
        """The first file a job at ``w`` writes (its key in ``params_by_output``)."""
        _, kind, file = self.files(config)[0]
        path = figure_files(file)[0] if kind == F else table(file) if kind == T else file
        return path.format(**w)


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
    files = {"prediction": "escape_prediction.csv", "delta50": "delta50_prediction.csv"}
    return {name: table(file) for name, file in files.items()} if sweep in predicted else {}


def theory_inputs(config):
    """Every theory model's DMFT solves and fixed point, and its referee's cells."""
    rules = {"dmft": "dmft_model", "fixed_point": "fixed_point_model", "sim": "theory_sim_cell"}
    return {name: jobs.outputs(config, rule) for name, rule in rules.items()}


def claims_inputs(config):
    """The results the claims read: their tables (``manifest.claim_tables``) and the first long run."""
    return {
        "tables": [table(name) for name in manifest.claim_tables(config)],
        "grokking": f"{RESULTS}/grokking/{next(iter(config['grokking']))}.npz",
    }


def design_sweeps(config):
    """{design: sweep} of the sweeps that name a design (``sweeps.<name>.design``)."""
    return {spec["design"]: name for name, spec in config["sweeps"].items() if "design" in spec}


def finite_size_inputs(config, w):
    """Per model its sweep's cell table; the theory thresholds for delta_NN(inf)."""
    models = config["finite_size"]["models"]
    out = {f"cells_{m}": sweep_tables(spec["sweep"])[0] for m, spec in models.items()}
    return out | {"theory": table("theory_thresholds.csv")}


# --- param sources: (config, wildcards) -> (value, origin) -------------------------------------------


def canonical_key(key):
    """The config value at ``key`` (a dict), with sorted keys (:func:`canonical`)."""
    return lambda config, w: (canonical(typed.lookup(config, key)[0]), key)


def _optional_canonical(key):
    """The config value at the dotted ``key`` with sorted keys (:func:`canonical`), or {} from no key
    where the config lacks it (an overlay's section)."""

    def source(config, w):
        value = manifest.section_of(config, key)
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

    return lambda config, w: (sorted(manifest.section_of(config, section) or {}), None)


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
    """Which sweeps and models each claim reads (``manifest.claim_roles``)."""
    roles = canonical(manifest.claim_roles(config))
    overlay = [
        f"theory.hessian_overlay.{a}" for a in ("gelu", "quad") if a in config["theory"]["hessian_overlay"]
    ]
    ends = [
        f"width.groups.{g}.{i}" for g, group in config["width"]["groups"].items() for i in {0, len(group) - 1}
    ]
    keys = ("claims.sweeps.gelu", "claims.sweeps.quad", "figure1.spectral", "easy_hard.stem", *ends, *overlay)
    return roles, keys


def _theory_kind(config, w):
    return manifest.THEORY_KINDS[w["stem"]], None


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


def _figure_jobs(rule):
    """A figure rule's jobs: one per stem the figure manifest gives it."""
    return lambda config: [{"stem": f.stem} for f in manifest.figures(config) if f.rule == rule]


def _per(section, wildcard):
    """One job per key of the config mapping ``section``, that key as ``wildcard``."""
    return lambda config: [{wildcard: name} for name in typed.lookup(config, section)[0]]


def _when(section):
    """One job where the config has ``section`` (a dotted path), none without it."""
    return lambda config: [{}] if manifest.section_of(config, section) else []


def figure(rule, **fields):
    """A figure rule drawing each stem the figure manifest gives it."""
    stems = _figure_jobs(rule)
    return ResultRule(
        rule=rule, what="Drawing {wildcards.stem}", log="figures/{stem}", outputs=((None, F, "{stem}"),),
        jobs=stems, constraints=lambda config: {"stem": "|".join(w["stem"] for w in stems(config)) or "^$"},
        **fields,
    )  # fmt: skip


def _prediction_rule(kind, what, level, **fields):
    """The rule comparing ``escape.<kind>``'s predictions with the sweeps: per model its cells, its
    sweep's cell table and fits; its tables and the figure ``extra_escape_<kind>``; the models'
    settings and the level its script reads them at."""

    def inputs(config, w):
        out = {}
        for model, spec in config["escape"][kind]["models"].items():
            out[f"cells_{model}"] = jobs.outputs(config, f"escape_{kind}_cell", model=model)
            out[f"sweep_{model}"], out[f"fits_{model}"] = sweep_tables(spec["sweep"])
        return out | {"theory": THEORY_TABLE}

    return ResultRule(
        rule=f"escape_{kind}_table",
        what=f"{what}: tables and figure",
        inputs=inputs,
        outputs=(("figure", F, f"extra_escape_{kind}"),),
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

THEORY_TABLE = table("theory_thresholds.csv")


def _fixed_points_compared(config, w):
    """The fixed points the scan's activations are compared with (``theory.hessian_overlay``)."""
    overlay = config["theory"]["hessian_overlay"]
    return [
        f"{RESULTS}/theory/fixed_point/{overlay[a]}.npz" for a in _scan_activations(config) if a in overlay
    ]


def _phase_inputs(config, w):
    sweep = sweep_of_figure(config, w["stem"])
    return prediction_inputs(config, sweep) | dict(
        zip(("cells", "thresholds"), sweep_tables(sweep), strict=True)
    )


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
        "theory": table("spectral_theory.csv"),
        "delta_alg": table("delta_alg.csv"),
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


# The rules, in the order of the pipeline's stages.
# fmt: off
RESULT_RULES = (
    # stage 2b: the optimal spectral method (no GD): theory curve and delta_alg
    ResultRule(
        rule="spectral_theory", what="Asymptotic spectral overlap curve and delta_alg per link",
        log="spectral/theory",
        params={"link": "spectral.link", "noise": "spectral.noise", "delta_max": _delta_max,
                "points": "spectral.theory_points"},
    ),
    # stage 2c: the Hessian at the restricted-GD plateau (docs/outlier.md)
    ResultRule(
        rule="hessian_table", what="Collecting the plateau spectra of {wildcards.activation}",
        inputs=_cells_of("hessian_cell", activation=lambda c, w: w["activation"]),
        log="hessian/table_{activation}",
        jobs=_per("hessian.delta", "activation"),
    ),
    ResultRule(
        rule="spectral_threshold_table",
        what="The plateau's spectral threshold delta_spec(d) per activation (docs/finite_size.md, (F14))",
        inputs=lambda config, w: spectral_threshold_inputs(config, w) | {"theory": THEORY_TABLE},
        log="hessian/spectral_threshold", params=_OVERLAY,
    ),
    ResultRule(
        rule="plateau_theory_table",
        what="The plateau against the fixed point per observable as d -> inf, and the plateau's own "
        "threshold (docs/outlier.md, (O19)-(O21))",
        inputs=lambda config, w: spectral_threshold_inputs(config, w) | {
            "spectral": table("spectral_threshold.csv"), "theory": THEORY_TABLE,
            "fixed_points": _fixed_points_compared(config, w)},
        log="hessian/plateau_theory", params=_OVERLAY,
    ),
    # stage 2d: theory (DMFT, outlier, static fixed point) against its simulated referee
    ResultRule(
        rule="theory_tables", what="Theory thresholds and theory-vs-simulation agreement tables",
        inputs=lambda config, w: theory_inputs(config) | {"thresholds": table("thresholds.csv")},
        log="theory/tables",
        params={**_THEORY, "report_steps": "theory.report_steps", "horizon": "theory.horizon",
                "validation": canonical_key("theory.validation")},
    ),
    # stage 2e: the escape (docs/escape.md): the hard coordinate's linear stage, the DMFT with signal,
    # and the success they predict
    ResultRule(
        rule="escape_linear_table", what="Linear stage of the escape: theory vs simulation table and figure",
        inputs=_cells_of("escape_linear_cell"),
        outputs=(("figure", F, "extra_escape_linear_stage"),),
        log="escape/linear_table", params={"report_steps": "escape.report_steps"},
    ),
    ResultRule(
        rule="escape_signal_table", what="DMFT with signal vs planted-overlap GD: table",
        inputs=_cells_of("escape_signal_cell"),
        log="escape/signal_table", params={"report_steps": "escape.report_steps"}, local=False,
    ),
    _prediction_rule("prediction", "Predicted vs measured success and delta50(d)", "rho_c"),
    _prediction_rule("two_stage", "Two-stage prediction vs measured success and delta50(d)", "t0",
                     script="escape_prediction_table"),
    # the convention explorer (overlay workflow/configs/conventions.yaml): which modelling conventions
    # reproduce the paper's three headline numbers; nothing runs without `conventions:`
    ResultRule(
        rule="convention_table",
        what="Conventions ranked against the paper's three numbers: table and figure",
        inputs=lambda config, w: {"scans": jobs.outputs(config, "convention_scan"),
                                  "plateaus": jobs.outputs(config, "convention_plateau")},
        outputs=(("figure", F, "extra_conventions"),),
        log="conventions/table", jobs=_when("conventions"),
        params={"conventions": _conventions, "paper": _optional_canonical("conventions.paper"),
                "tolerance": _optional_canonical("conventions.tolerance")},
    ),
    # finite-size analysis of the GD thresholds (docs/finite_size.md): delta50(d) per model, the laws of
    # its growth by the joint likelihood of every cell, what they decide about d -> inf
    ResultRule(
        rule="finite_size_scaling",
        what="Finite-size analysis of the sweeps' thresholds: joint-likelihood laws, profiles, bootstrap, "
        "figure",
        inputs=finite_size_inputs,
        outputs=(("figure", F, lambda config: config["finite_size"]["stem"]),),
        log="finite_size/scaling",
        params={"models": canonical_key("finite_size.models"),
                **{k: f"finite_size.{k}" for k in ("bootstrap", "level", "limit_range", "min_d")},
                "pricing": _finite_size_pricing, "seed": "seed", "paper": canonical_key("claims.paper")},
    ),
    ResultRule(
        rule="finite_size_refine",
        what="Second-pass delta placement around each d's crossing (an overlay, built on request)",
        inputs=finite_size_inputs, outputs=((None, FILE, f"{RESULTS}/finite_size/refine.yaml"),),
        log="finite_size/refine",
        params={"models": canonical_key("finite_size.models"), "refine": canonical_key("finite_size.refine"),
                "grids": _finite_size_grids},
    ),
    # the designer (docs/design.md, overlay workflow/configs/design.yaml): the sweeps the theory asks for
    # (read from the theory alone, so pass 2 does not rewrite them) and the design table
    ResultRule(
        rule="design_sweeps",
        what="The GD sweeps the theory asks for: its best and worst designs and the included ones "
        "(an overlay for pass 2)",
        inputs=lambda config, w: {"theory": jobs.outputs(config, "design_theory")},
        outputs=((None, FILE, f"{RESULTS}/design/design_sweeps.yaml"),), log="design/sweeps",
        params={"design": _optional_canonical("design"), "settings": _design_settings}, jobs=_when("design"),
    ),
    ResultRule(
        rule="design_table", what="Design table and figure",
        inputs=lambda config, w: {
            "theory": jobs.outputs(config, "design_theory"), "family": jobs.outputs(config, "design_family"),
            "thresholds": [sweep_tables(sweep)[1] for sweep in design_sweeps(config).values()]},
        outputs=(("figure", F, lambda config: config["design"]["stem"] if config.get("design") else None),),
        log="design/table", jobs=_when("design"),
        params={"design": _optional_canonical("design"), "settings": _design_settings,
                "swept": _design_swept},
    ),
    # stage 3: cell summaries and threshold fits
    ResultRule(
        rule="aggregate_sweep", what="Summarising sweep {wildcards.sweep} and fitting its thresholds",
        inputs=_cells_of("sweep_block", sweep=lambda c, w: w["sweep"]),  # the blocks of every cell
        log="aggregate/{sweep}", jobs=_per("sweeps", "sweep"),
        constraints=lambda config: {"sweep": "|".join(config["sweeps"])},
    ),
    ResultRule(
        rule="threshold_table", what="Collecting the threshold table",
        inputs=lambda config, w: {
            # the k = 2 easy+hard sweep has no single-direction transition: it has its own table
            "sweeps": [sweep_tables(s)[1] for s in config["sweeps"] if s != config["easy_hard"]["sweep"]],
            "delta_alg": table("delta_alg.csv")},
        log="threshold_table",
        resources={"mem_mb": 500, "runtime": 5},
    ),
    # stage 4: figures
    figure("phase_figure", inputs=_phase_inputs,
           params={"title": _phase_title, "sweep": lambda c, w: (sweep_of_figure(c, w["stem"]), None)}),
    figure("grokking_figure", inputs=lambda config, w: {"run": f"{RESULTS}/grokking/{w['stem']}.npz"}),
    figure("spectral_figure", inputs=_spectral_figure_inputs,
           params={"link": "spectral.link", "sweep": "figure1.random"}),
    figure("hessian_spectrum_figure", inputs=lambda config, w: {"cells": [
        f for act, pair in config["hessian"]["histogram"].items() for dl in pair
        for f in jobs.outputs(config, "hessian_cell", activation=act, delta=dl)]}),
    figure("hessian_delta_figure", params={"overlay": canonical_key("theory.hessian_overlay")},
           inputs=lambda config, w: {
               "tables": [table(f"hessian_{a}.csv") for a in config["hessian"]["delta"]],
               "fixed_points": [f"{RESULTS}/theory/fixed_point/{m}.npz"
                                for m in config["theory"]["hessian_overlay"].values()]}),
    figure("hessian_trajectory_figure", inputs=_cells_of("hessian_cell")),
    figure("plateau_theory_figure", inputs=lambda config, w: {"table": table("plateau_vs_theory.csv")}),
    figure("landscape_figure", inputs=_cells_of("landscape_cell")),
    figure("sweep_escape_steps_figure", params={"sweeps": _key_set("sweeps")},  # sorted: order is no change
           inputs=lambda config, w: {"tables": [sweep_tables(name)[0] for name in sorted(config["sweeps"])]}),
    figure("theory_figure", params={**_THEORY, "kind": _theory_kind}, local=False,
           inputs=lambda config, w: theory_inputs(config) | {  # only the δ_NN figure draws the thresholds
               "table": THEORY_TABLE if manifest.THEORY_KINDS[w["stem"]] == "delta_nn" else []}),
    figure("width_figure", inputs=_width_inputs, params={"groups": "width.groups", "widths": _widths}),
    ResultRule(
        rule="easy_hard_figure", what="Drawing easy vs hard direction learning",
        inputs=_cells_of("sweep_block", sweep=lambda c, w: c["easy_hard"]["sweep"]),
        outputs=(("figure", F, lambda config: config["easy_hard"]["stem"]),),
        log=lambda config: f"figures/{config['easy_hard']['stem']}",
        params={"level": "easy_hard.learned_overlap"},
    ),
    # stage 5: the claims table with computed verdicts (the manuscript: paper.smk)
    ResultRule(
        rule="claims_table", what="The paper's claims against the results: verdicts",
        inputs=lambda config, w: claims_inputs(config),
        log="paper/claims",
        params={"tolerance": canonical_key("claims.tolerance"), "paper": canonical_key("claims.paper"),
                "roles": _claim_roles},  # which sweeps and models each claim reads
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
