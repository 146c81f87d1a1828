# Helpers shared by the rules: config validation and checks, typed settings, derived code
# dependencies, resources and the target list.  Every path is relative to the working directory,
# so a copied or moved checkout with its results/ is up to date.
import os
from pathlib import Path

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError

from featlearn.pipeline import checks, manifest
from featlearn.pipeline import resources as estimate
from featlearn.pipeline import settings as typed
from featlearn.pipeline.deps import module_closure, module_names


def validate_config(cfg, schema_path):
    """Validate ``cfg`` against the JSON schema; fail with one line naming the offending key."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    error = next(iter(sorted(validator.iter_errors(cfg), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        key = ".".join(str(p) for p in error.absolute_path) or "<top level>"
        raise WorkflowError(f"config error at '{key}': {error.message}")


def memory_limit():
    """The most memory one job may take: the profile's --resources mem_mb and, when jobs run on
    this machine, its physical memory."""
    limits = []
    given = getattr(workflow.global_resources.get("mem_mb"), "value", None)
    if isinstance(given, int):
        limits.append(given)
    if workflow.local_exec and estimate.machine_mem_mb():
        limits.append(estimate.machine_mem_mb())
    return min(limits) if limits else None


validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))
try:
    checks.check_config(config, memory_limit())
except checks.ConfigError as error:
    raise WorkflowError(str(error)) from None

RESULTS = "results"
NUMBA_CACHE = f"{RESULTS}/.numba_cache"
ENV = "../../envs/featlearn.yaml"
ROOT = Path(workflow.basedir)
FIGURES = manifest.figures(config)


def code(script):
    """The featlearn modules ``workflow/scripts/<script>`` runs, transitively (derived from its
    imports by ``featlearn.pipeline.deps``), relative to the working directory: editing any of
    them reruns the rule."""
    files = module_closure(ROOT / "workflow" / "scripts" / script, ROOT / "src" / "featlearn")
    return [os.path.relpath(f) for f in files]


def kernel_cache(script):
    """The numba cache warmed for the kernels ``workflow/scripts/<script>.py`` uses (rule
    numba_cache), an input of the rules that run that script."""
    return f"{NUMBA_CACHE}/{script}.ready"


def kernel_cache_dir(ready):
    """The numba cache directory of one consumer script (``<cache>/<script>/`` beside its ``.ready``
    marker).  One directory per script: numba keys a cached kernel by signature only, so a kernel
    first compiled inside another script's kernel (e.g. a fastmath caller) would otherwise be
    cached with that context's code, and results would depend on which warm-up ran first."""
    return os.path.splitext(ready)[0]


def fmt(value):
    """Canonical text of a number in a file name (δ = 6.0 -> '6')."""
    return f"{float(value):g}"


def canonical(params):
    """A dict with sorted keys, recursively: Snakemake compares params in order, so key order in a
    config file must not make a job look changed."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(params.items())}


def sweep_cells(name):
    """Result files of every (d, δ) cell of sweep ``name``."""
    spec = config["sweeps"][name]
    return [
        f"{RESULTS}/sweeps/{name}/d{d}_delta{fmt(delta)}.npz" for d in spec["d"] for delta in spec["delta"]
    ]


def sweep_of_figure(stem):
    """The sweep whose phase figure has file stem ``stem`` (stems are unique: checked)."""
    return next(name for name, spec in config["sweeps"].items() if spec["figure"] == stem)


def predicted_sweeps():
    """The sweeps some ``escape.prediction`` model predicts."""
    return {spec["sweep"] for spec in config["escape"]["prediction"]["models"].values()}


def prediction_inputs(sweep):
    """The prediction tables a figure of ``sweep`` draws, if a prediction model names it."""
    if sweep not in predicted_sweeps():
        return {}
    return {
        "prediction": f"{RESULTS}/tables/escape_prediction.csv",
        "delta50": f"{RESULTS}/tables/delta50_prediction.csv",
    }


def phase_title(stem):
    s = typed.sweep_settings(config, sweep_of_figure(stem))
    return f"{s.activation}, y = {s.link}"


def stems_of(rule_name):
    """The figure stems a rule draws (from the manifest)."""
    return [f.stem for f in FIGURES if f.rule == rule_name]


def stem_constraint(rule_name):
    return "|".join(stems_of(rule_name)) or "^$"


def figure_files(stem):
    return [f"{RESULTS}/figures/{stem}.pdf", f"{RESULTS}/figures/{stem}.png"]


REPORT_CAPTION = "../report/caption.rst"


def figure_outputs(stem):
    """A figure's PDF and PNG as rule outputs, the PNG in Snakemake's report (``--report``)."""
    pdf, png = figure_files(stem)
    return [pdf, report(png, caption=REPORT_CAPTION, category="Figures", labels={"figure": stem})]


def table_output(path):
    """A results table as a rule output, in Snakemake's report."""
    return report(path, caption=REPORT_CAPTION, category="Tables", labels={"table": os.path.basename(path)})


def report_caption(wildcards, output):
    """The report caption of a job's figures and tables (``manifest.caption_of``), one per file."""
    lines = [f"**{os.path.basename(p)}**: {manifest.caption_of(config, p)}" for p in output if p.endswith((".png", ".csv", ".tex"))]
    return "\n\n".join(lines)


def main_n_paths(model):
    """The model's main number of DMFT paths N (its own ``n_paths`` or the global one)."""
    return config["theory"]["models"][model].get("n_paths", config["theory"]["n_paths"])


def theory_n_paths(model):
    """Every N the DMFT of ``model`` is solved with (the main value first)."""
    main = main_n_paths(model)
    return [main] + [n for n in config["theory"]["n_paths_scan"] if n != main]


def theory_sim_cells(model):
    spec = config["theory"]["simulation"]
    return [f"{RESULTS}/theory/sim/{model}/delta{fmt(dl)}.npz" for dl in spec["delta"].get(model, [])]


def theory_inputs():
    models = config["theory"]["models"]
    return {
        "dmft": [f"{RESULTS}/theory/dmft/{m}_N{n}.npz" for m in models for n in theory_n_paths(m)],
        "fixed_point": [f"{RESULTS}/theory/fixed_point/{m}.npz" for m in models],
        "sim": [f for m in models for f in theory_sim_cells(m)],
    }


def theory_model_params():
    """Every theory model's settings (as dicts, sorted by name) and main N."""
    models = sorted(config["theory"]["models"])
    return (
        {m: typed.theory_model_settings(config, m).asdict() for m in models},
        {m: main_n_paths(m) for m in models},
    )


# Resources of the parametrised jobs (formulas: featlearn.pipeline.resources).

def sweep_cell_mem_mb(w):
    s = typed.sweep_settings(config, w.sweep)
    return estimate.gd_cell_mem_mb(int(w.d), float(w.delta), s.n_test, s.dtype)


def sweep_cell_runtime(w):
    s = typed.sweep_settings(config, w.sweep)
    return estimate.gd_cell_runtime(int(w.d), float(w.delta), s.dtype, s.steps, s.trials, s.m)


def grokking_mem_mb(w):
    s = typed.long_run_settings(config, w.name)
    return estimate.gd_cell_mem_mb(s.d, s.delta, s.n_test, s.dtype)


def grokking_runtime(w):
    s = typed.long_run_settings(config, w.name)
    return estimate.gd_cell_runtime(s.d, s.delta, s.dtype, s.steps, 1, s.m)


def escape_cells(kind):
    """Cells of the linear stage (``escape.cases``) or of the DMFT with signal (``escape.signal.cases``)."""
    cases = config["escape"]["cases"] if kind == "linear" else config["escape"]["signal"]["cases"]
    return [f"{RESULTS}/escape/{kind}/{m}/delta{fmt(dl)}.npz" for m in sorted(cases) for dl in cases[m]]


def escape_resources(w, kind):
    """(mem_mb, seconds) of an escape cell (``resources.escape_cell``)."""
    s = typed.escape_settings(config, w.model)
    return estimate.escape_cell(kind, s, float(w.delta), config["escape"]["signal"]["m0"])


def escape_mem_mb(w, kind):
    return escape_resources(w, kind)[0]


def escape_runtime(w, kind):
    return estimate.minutes(escape_resources(w, kind)[1])


def prediction_cells(model, kind="prediction"):
    deltas = config["escape"][kind]["models"][model]["delta"]
    return [f"{RESULTS}/escape/{kind}/{model}/delta{fmt(dl)}.npz" for dl in deltas]


def prediction_table_inputs(kind):
    """Input function: per model of ``escape.<kind>``, its cells, its sweep's cell table and fits."""

    def inputs(w):
        out = {}
        for model, spec in config["escape"][kind]["models"].items():
            out[f"cells_{model}"] = prediction_cells(model, kind)
            out[f"sweep_{model}"] = f"{RESULTS}/tables/{spec['sweep']}_cells.csv"
            out[f"fits_{model}"] = f"{RESULTS}/tables/{spec['sweep']}_thresholds.csv"
        return out

    return inputs


def prediction_mem_mb(w):
    s = typed.prediction_settings(config, w.model)
    return estimate.prediction_mem_mb(s.n_paths, s.horizon, s.samples)


def prediction_runtime(w):
    s = typed.prediction_settings(config, w.model)
    return estimate.minutes(estimate.prediction_seconds(s.n_paths, s.horizon, s.samples, len(s.d), len(s.rho_c)))


def two_stage_mem_mb(w):
    s = typed.two_stage_settings(config, w.model)
    return estimate.dmft_mem_mb(s.n_paths, s.horizon)


def two_stage_runtime(w):
    s = typed.two_stage_settings(config, w.model)
    return estimate.minutes(estimate.two_stage_seconds(s.n_paths, s.horizon, len(s.m0) * len(s.t0)))


def convention_scans():
    """Every scan of the convention explorer (none without a ``conventions`` section)."""
    spec = config.get("conventions")
    if not spec:
        return []
    return [
        f"{RESULTS}/conventions/scan/{name}/{act}_d{d}.npz"
        for name in spec["grid"]
        for act in spec["activations"]
        for d in spec["d"]
    ]


def convention_plateaus():
    spec = config.get("conventions")
    return [f"{RESULTS}/conventions/plateau/{name}.npz" for name in spec["grid"]] if spec else []


def convention_scan_cells(w):
    """(settings, number of scanned δ, largest δ) of a scan: the coarse grid plus the refinements,
    whose largest is at most the coarse grid's end times the largest factor."""
    s = typed.convention_settings(config, w.convention, w.activation)
    spec = config["conventions"]
    return s, *estimate.scan_extent(spec["coarse"][w.activation], spec["refine"])


def convention_scan_mem_mb(w):
    s, _, largest = convention_scan_cells(w)
    return estimate.gd_cell_mem_mb(int(w.d), largest, s.n_test, s.dtype)


def convention_scan_runtime(w):
    s, cells, largest = convention_scan_cells(w)
    return estimate.minutes(cells * estimate.gd_cell_seconds(int(w.d), largest, s.dtype, s.steps, s.trials, s.m))


def convention_plateau_settings(w):
    p = config["conventions"]["plateau"]
    return typed.convention_settings(config, w.convention, p["activation"], steps=p["steps"])


def convention_plateau_mem_mb(w):
    s, p = convention_plateau_settings(w), config["conventions"]["plateau"]
    return estimate.gd_cell_mem_mb(p["d"], p["delta"], s.n_test, s.dtype)


def convention_plateau_runtime(w):
    s, p = convention_plateau_settings(w), config["conventions"]["plateau"]
    return estimate.gd_cell_runtime(p["d"], p["delta"], s.dtype, s.steps, 1, s.m)


def claim_roles():
    """Which sweeps and models each claim reads (``analysis.claims.roles``)."""
    from featlearn.analysis.claims import roles

    return canonical(roles(config))


def claims_inputs(w):
    """The results the claims read: the threshold, theory and Hessian tables, the Fig 4 sweep's
    cells, the easy/hard learning steps and the first long run."""
    r = claim_roles()
    tables = ["thresholds.csv", "delta_alg.csv", "theory_thresholds.csv", "dmft_vs_simulation.csv"]
    tables += [f"hessian_{act}.csv" for act in r["hessian"]]
    tables += [f"{r['gelu']}_cells.csv", f"{config['easy_hard']['stem']}_learning_steps.csv"]
    return {
        "tables": [f"{RESULTS}/tables/{name}" for name in tables],
        "grokking": f"{RESULTS}/grokking/{next(iter(config['grokking']))}.npz",
    }


def landscape_cells():
    spec = config["landscape"]
    return [f"{RESULTS}/landscape/{spec['activation']}/delta{fmt(dl)}.npz" for dl in spec["delta"]]


THEORY_KINDS = manifest.THEORY_KINDS
THEORY_TABLES = (
    "theory_thresholds.csv",
    "theory_thresholds.tex",
    "dmft_vs_simulation.csv",
    "outlier_vs_simulation.csv",
    "bounded_link_validation.csv",
)


def all_targets():
    targets = [f"{RESULTS}/tables/thresholds.csv"]
    targets += [f"{RESULTS}/tables/{name}" for name in THEORY_TABLES]
    targets += [f"{RESULTS}/tables/escape_linear_stage.csv", f"{RESULTS}/tables/escape_signal.csv"]
    targets += [f"{RESULTS}/tables/escape_prediction.csv", f"{RESULTS}/tables/delta50_prediction.csv"]
    if config["escape"].get("two_stage"):
        targets.append(f"{RESULTS}/tables/delta50_two_stage.csv")
    if config.get("conventions"):
        targets.append(f"{RESULTS}/tables/conventions.csv")
    targets += [f"{RESULTS}/tables/claims.csv", f"{RESULTS}/paper/manuscript.pdf"]
    for figure in FIGURES:
        targets += figure_files(figure.stem)
    return targets


def plateau_mem_mb(w):
    s = typed.plateau_settings(config, w.activation)
    return estimate.restricted_mem_mb(s.d, float(w.delta), s.m)


def landscape_runtime(w):
    s = typed.plateau_settings(config, w.activation)
    return estimate.minutes(estimate.landscape_seconds(s.d, float(w.delta), s.steps, s.m))


def plateau_runtime(w):
    s = typed.plateau_settings(config, w.activation)
    return estimate.restricted_runtime(s.d, float(w.delta), s.steps, s.seeds, s.checkpoints + 1, s.m)


def referee_mem_mb(w):
    return estimate.restricted_mem_mb(config["theory"]["simulation"]["d"], float(w.delta))


def referee_runtime(w):
    s = typed.referee_settings(config, w.model)
    return estimate.restricted_runtime(s.d, float(w.delta), s.steps, s.seeds, len(s.spectrum_steps))
