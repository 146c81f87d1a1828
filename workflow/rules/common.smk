# Helpers shared by the rules: config validation and checks, typed settings, derived code
# dependencies, resources and the target list.  Every path is relative to the working directory,
# so a copied or moved checkout with its results/ is up to date.
import functools
import os
from pathlib import Path

import yaml
from snakemake.exceptions import WorkflowError

from featlearn.pipeline import checks, kernels, manifest
from featlearn.pipeline import jobs as registry
from featlearn.pipeline import resources as estimate
from featlearn.pipeline import settings as typed
from featlearn.pipeline.deps import code_stamp, module_names


def memory_limit():
    """The most memory one job may take: the profile's --resources mem_mb and, when jobs run on
    this machine, its physical memory."""
    given = getattr(workflow.global_resources.get("mem_mb"), "value", None)
    limits = [given] if isinstance(given, int) else []
    if workflow.local_exec and estimate.machine_mem_mb():
        limits.append(estimate.machine_mem_mb())
    return min(limits) if limits else None


# the config is checked against its JSON schema, then by every check the schema cannot express; a
# failure is one line naming the offending key
schema = yaml.safe_load(Path(workflow.source_path("../schemas/config.schema.yaml")).read_text())
try:
    checks.check_config(config, memory_limit(), schema)
except checks.ConfigError as error:
    raise WorkflowError(str(error)) from None

RESULTS = "results"
NUMBA_CACHE = f"{RESULTS}/.numba_cache"
KERNELS = f"{RESULTS}/.kernels"
CODE = f"{RESULTS}/.code"
ENV = "../../envs/featlearn.yaml"
ROOT = Path(workflow.basedir)
FIGURES = manifest.figures(config)


@functools.cache
def code(script):
    """The code stamp of ``workflow/scripts/<script>`` (``results/.code/<stem>.sha256``): the SHA-256
    of the featlearn modules it runs, transitively (derived from its imports by
    ``featlearn.pipeline.deps``), rewritten when parsing the workflow finds it changed, so editing
    any of them reruns the rule; one input in place of every module."""
    return str(code_stamp(ROOT / "workflow" / "scripts" / script, ROOT / "src" / "featlearn", CODE))


# Written now, while the workflow is parsed: a stamp first written by an input function during DAG
# building can be missed by Snakemake's cached listing of results/.code (MissingInputException).
WARM_CODE = code("warm_numba.py")


def warmed_code(script):
    """The code inputs of a numba cache: the warm-up and its consumer ``<script>.py`` import the same
    modules, so editing one reruns both (every consumer's stamp is written at parse time by its own
    rule's ``code`` input)."""
    return [WARM_CODE, code(f"{script}.py")]


def kernel_tag_constraint():
    """The tags of this config's model kernels, as a wildcard constraint (none: nothing matches)."""
    return "|".join(kernels.kernel_tags(config)) or "^$"


def kernel_cache_dir(ready):
    """The numba cache directory of one consumer script (``<cache>/<script>/`` beside its ``.ready``
    marker; ``<cache>/<tag>/<script>/`` for a generated model kernel).  One directory per
    script: numba keys a cached kernel by signature only, so a kernel first compiled inside another
    script's kernel (e.g. a fastmath caller) would otherwise be cached with that context's code, and
    results would depend on which warm-up ran first."""
    return os.path.splitext(ready)[0]


def canonical(params):
    """A dict with sorted keys, recursively: Snakemake compares params in order, so key order in a
    config file must not make a job look changed."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(params.items())}


def sweep_tables(name):
    """The cell table and the threshold fits of sweep ``name``."""
    return [f"{RESULTS}/tables/{name}_cells.csv", f"{RESULTS}/tables/{name}_thresholds.csv"]


def sweep_of_figure(stem):
    """The sweep whose phase figure has file stem ``stem`` (stems are unique: checked)."""
    return next(name for name, spec in config["sweeps"].items() if spec["figure"] == stem)


def phase_title(stem):
    s = typed.SWEEP.build(config, sweep=sweep_of_figure(stem))
    return f"{s.activation}, y = {s.link}"


def spectral_threshold_inputs(w):
    """The plateau cells of the spectral-threshold scan, per activation (``cells_<activation>``)."""
    activations = config.get("spectral_threshold", {}).get("delta", {})
    return {f"cells_{act}": job_outputs("spectral_threshold_cell", activation=act) for act in activations}


def prediction_inputs(sweep):
    """The prediction tables a figure of ``sweep`` draws, if an ``escape.prediction`` model names it."""
    predicted = {spec["sweep"] for spec in config["escape"]["prediction"]["models"].values()}
    tables = {"prediction": "escape_prediction.csv", "delta50": "delta50_prediction.csv"}
    return {name: f"{RESULTS}/tables/{file}" for name, file in tables.items()} if sweep in predicted else {}


def stem_constraint(rule_name):
    """The figure stems a rule draws (from the manifest), as a wildcard constraint."""
    return "|".join(f.stem for f in FIGURES if f.rule == rule_name) or "^$"


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


def theory_inputs():
    """Every theory model's DMFT solves and fixed point, and its referee's cells."""
    rules = {"dmft": "dmft_model", "fixed_point": "fixed_point_model", "sim": "theory_sim_cell"}
    return {name: job_outputs(rule) for name, rule in rules.items()}


# The compute jobs: paths, settings and resources from the job registry (featlearn.pipeline.jobs).


def job_output(rule):
    """A compute job's output pattern (a directory for a kind whose jobs write one)."""
    kind = registry.KIND[rule]
    return directory(kind.pattern("output")) if kind.suffix == "" else kind.pattern("output")


def job_inputs(kind):
    """Input function of a compute job: its code, the kind's other inputs and, for a kind that runs
    numba kernels, its numba cache as ``cache`` (the ``.ready`` marker of its numba_cache job); for a
    job whose activation or loss is a config entry, that cache is the one warmed with its generated
    kernel module (model_numba_cache), and the module is its ``kernel`` (``featlearn.pipeline.kernels``)."""
    script_code = code(f"{kind.script}.py")

    def inputs(w):
        other = {name: pattern.format(**dict(w.items())) for name, pattern in kind.inputs}
        tag = kernels.job_kernel_tag(config, kind.rule, w) if kind.warm else None
        cache = {"cache": f"{NUMBA_CACHE}/{kind.script}.ready"} if kind.warm else {}
        if tag is not None:
            cache = {"cache": f"{NUMBA_CACHE}/{tag}/{kind.script}.ready", "kernel": f"{KERNELS}/{tag}.py"}
        return {**cache, "code": script_code, **other}

    return inputs


def job_params(kind):
    """A compute job's params: ``settings`` (exactly the fields its code reads) and the registry's
    extra values, one input function each, and, where it runs numba kernels, its cache directory."""

    def param(name):
        return lambda w: kind.params(config, w)[0][name]

    params = {name: param(name) for name in ("settings", *kind.extra)}
    if kind.warm:
        params["cache_dir"] = lambda w, input: kernel_cache_dir(input.cache)
    return params


def job_resources(rule):
    """A compute job's memory (MB) and runtime (minutes) requests, from the registry's cost."""

    def cost(w):
        return registry.job(config, rule, dict(w.items()))

    return {"mem_mb": lambda w: cost(w).mem_mb, "runtime": lambda w: estimate.minutes(cost(w).seconds)}


def job_outputs(rule, **match):
    """Outputs of the jobs of ``rule`` whose wildcards match (e.g. ``model="gelu"``)."""
    return registry.outputs(config, rule, **match)


def prediction_entry(kind, what, level, **tables):
    """The RESULT_RULES entry comparing ``escape.<kind>``'s predictions with the sweeps: per model
    its cells, its sweep's cell table and fits; the ``tables`` ({output: file name}) and the figure
    ``extra_escape_<kind>``; the models' settings and the level its script reads them at."""
    table = {"prediction": typed.PREDICTION, "two_stage": typed.TWO_STAGE}[kind]

    def inputs(w):
        out = {}
        for model, spec in config["escape"][kind]["models"].items():
            out[f"cells_{model}"] = job_outputs(f"escape_{kind}_cell", model=model)
            out[f"sweep_{model}"], out[f"fits_{model}"] = sweep_tables(spec["sweep"])
        return out

    return dict(
        what=f"{what}: tables and figure",
        inputs=inputs,
        input=dict(theory=f"{RESULTS}/tables/theory_thresholds.csv"),
        output=dict(
            **{name: table_output(f"{RESULTS}/tables/{file}") for name, file in tables.items()},
            figure=figure_outputs(f"extra_escape_{kind}"),
        ),
        log=f"escape/{kind}_table",
        params=dict(
            models=lambda w: canonical(config["escape"][kind]["models"]),
            settings=lambda w: {m: table.build(config, model=m).asdict() for m in config["escape"][kind]["models"]},
            tolerance=config["escape"]["prediction"]["tolerance"],
            level=level,
        ),
        local=False,
    )


def finite_size_inputs(w):
    """Per model its sweep's cell table; the theory thresholds for delta_NN(inf)."""
    models = config["finite_size"]["models"]
    out = {f"cells_{m}": sweep_tables(spec["sweep"])[0] for m, spec in models.items()}
    return out | {"theory": f"{RESULTS}/tables/theory_thresholds.csv"}


def design_sweeps():
    """{design: sweep} of the sweeps that name a design (``sweeps.<name>.design``)."""
    return {spec["design"]: name for name, spec in config["sweeps"].items() if "design" in spec}


def design_settings_params():
    """Each design's settings (as its theory job reads them), for the design table's columns."""
    names = config.get("design", {}).get("designs", {})
    return {name: typed.DESIGN.build(config, design=name).asdict() for name in names}


def design_inputs(w):
    """Every design's theory, the family's minimum (if any) and the threshold table of each sweep
    that names a design."""
    out = {"theory": job_outputs("design_theory"), "family": job_outputs("design_family")}
    return out | {"thresholds": [sweep_tables(sweep)[1] for sweep in design_sweeps().values()]}


def finite_size_grids():
    """{sweep: {d: the δ run at d}} of the finite-size models' sweeps (``settings.sweep_deltas``)."""
    sweeps = {spec["sweep"] for spec in config["finite_size"]["models"].values()}
    return {s: {d: list(typed.sweep_deltas(config, s, d)) for d in config["sweeps"][s]["d"]} for s in sorted(sweeps)}


def finite_size_pricing():
    """Per finite-size model, what prices new cells of its sweep (``resources.sweep_core_hours``):
    the sweep's dtype, step budget and width, and ``budget_scale_d``; and its test samples, for the
    memory per job (``resources.gd_cell_mem_mb``)."""
    out = {}
    for model, spec in config["finite_size"]["models"].items():
        s = typed.SWEEP.build(config, sweep=spec["sweep"])
        out[model] = {"dtype": s.dtype, "steps": s.steps, "m": s.m, "budget_scale_d": config["budget_scale_d"]}
        out[model]["n_test"] = s.n_test
    return canonical(out)


def claims_inputs(w):
    """The results the claims read: their tables (``manifest.claim_tables``) and the first long run."""
    return {
        "tables": [f"{RESULTS}/tables/{name}" for name in manifest.claim_tables(config)],
        "grokking": f"{RESULTS}/grokking/{next(iter(config['grokking']))}.npz",
    }


def index_groups():
    """The results index's rows: per manifest table its name, caption and files (the per-sweep and
    per-activation tables one row each)."""
    return [
        {"table": table.name, "caption": table.caption, "files": names}
        for table, names in manifest.tables(config)
        if table.name.endswith(".csv")
    ]


def all_targets():
    """The tables the manifest targets, the designer's sweeps, the manuscript and every figure."""
    targets = [f"{RESULTS}/tables/{name}" for name in manifest.target_tables(config)]
    if config.get("design"):
        targets.append(f"{RESULTS}/design/design_sweeps.yaml")
    targets.append(f"{RESULTS}/paper/manuscript.pdf")
    for figure in FIGURES:
        targets += figure_files(figure.stem)
    return targets
