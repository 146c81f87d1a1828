# Helpers shared by the rules: config validation and checks, typed settings, derived code
# dependencies, resources and the target list.  Every path is relative to the working directory,
# so a copied or moved checkout with its results/ is up to date.
import functools
import os
from pathlib import Path

import yaml
from snakemake.exceptions import WorkflowError

from featlearn.pipeline import checks, kernels, manifest, result_rules
from featlearn.pipeline import jobs as registry
from featlearn.pipeline import resources as estimate
from featlearn.pipeline import settings as typed
from featlearn.pipeline.deps import code_stamp, foreign_package
from featlearn.pipeline.result_rules import canonical, figure_files, table


def memory_limit():
    """The most memory one job may take: the profile's --resources mem_mb and, when jobs run on
    this machine, its physical memory."""
    given = getattr(workflow.global_resources.get("mem_mb"), "value", None)
    limits = [given] if isinstance(given, int) else []
    if workflow.local_exec and estimate.machine_mem_mb():
        limits.append(estimate.machine_mem_mb())
    return min(limits) if limits else None


# the rules and the jobs' code come from the imported featlearn package: it must be this checkout's
problem = foreign_package(workflow.basedir)
if problem:
    raise WorkflowError(problem)

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
def code(program):
    """The code stamp of ``program`` (``results/.code/<program>.sha256``): a script of
    workflow/scripts/ or a job kind's program (``kernels.program_files``).  It holds the SHA-256 of
    the featlearn modules the program runs, transitively (derived from its imports by
    ``featlearn.pipeline.deps``), rewritten when parsing the workflow finds it changed, so editing
    any of them reruns the rule; one input in place of every module."""
    script, package, imports = kernels.program_files(program, ROOT)
    return str(code_stamp(script, package, CODE, imports=imports, name=program))


# Written now, while the workflow is parsed: a stamp first written by an input function during DAG
# building can be missed by Snakemake's cached listing of results/.code (MissingInputException).
WARM_CODE = code("warm_numba")
LINK_CODE = code("link_numba")


@functools.cache
def kernel_code(program):
    """The kernel stamp of ``program`` (``results/.code/kernels/<program>.sha256``): the SHA-256 of
    its kernel modules and what they import (``deps.kernel_closure``), so that a warm-up reruns
    exactly when the code it compiles changes (a subset of what its consumer runs)."""
    script, package, imports = kernels.program_files(program, ROOT)
    return str(code_stamp(script, package, f"{CODE}/kernels", True, imports, program))


def warmed_code(program):
    """The code inputs of a numba cache: the warm-up and the kernels of its consumer ``program``."""
    return [WARM_CODE, kernel_code(program)]


def kernel_bases(program):
    """{kernel module: leader program whose cache holds it compiled} for ``program``'s warm-up
    (``kernels.kernel_bases``)."""
    return kernels.kernel_bases(program, ROOT)


def kernel_leader(program):
    """The program whose numba cache ``program``'s shares (``kernels.kernel_leader``)."""
    return kernels.kernel_leader(program, ROOT)


def kernel_scripts(leaders):
    """The warmed programs that lead their kernel group (``leaders`` True) or follow a leader, as a
    wildcard constraint."""
    programs = sorted(kernels.warmed_programs())
    return "|".join(p for p in programs if (kernel_leader(p) == p) == leaders) or "^$"


# Written now, while the workflow is parsed (see WARM_CODE).
KERNEL_CODE = [kernel_code(program) for program in kernels.warmed_programs()]


def kernel_tag_constraint():
    """The tags of this config's model kernels, as a wildcard constraint (none: nothing matches)."""
    return "|".join(kernels.kernel_tags(config)) or "^$"


def kernel_cache_dir(ready):
    """The numba cache directory of one consumer program (``<cache>/<program>/`` beside its
    ``.ready`` marker; ``<cache>/<tag>/<program>/`` for a generated model kernel).  One directory per
    set of kernel modules, so that a warm-up reruns exactly when a module of its set changes, and
    with it the jobs that run that set; programs with the same kernel modules share their leader's
    (:func:`kernel_leader`, a link)."""
    return os.path.splitext(ready)[0]


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


# The table and figure rules (one block each in the stage files): every part but the script from the
# rule's declaration in featlearn.pipeline.result_rules, found by the rule's name.


def result_message(rule):
    """What a table or figure job does (its declaration's ``what``)."""
    return result_rules.RESULT_RULE[rule].what


def result_inputs(rule):
    """Input function of a table or figure rule: its code stamp (written now, while the workflow is
    parsed) and what its declaration says it reads."""
    entry = result_rules.RESULT_RULE[rule]
    stamp = code(entry.script)
    return lambda w: {**entry.inputs(config, dict(w.items())), "code": stamp}


@functools.cache
def _result_outputs(rule):
    """(unnamed outputs, {name: output}) of a table or figure rule: each table in the report, each
    figure its PDF and PNG (``figure_outputs``; none for a figure of an absent section)."""
    positional, named = [], {}
    for name, kind, file in result_rules.RESULT_RULE[rule].files(config):
        if kind == "figure":
            out = figure_outputs(file) if file is not None else []
        else:
            out = table_output(f"{RESULTS}/tables/{file}") if kind == "table" else file
        if name is not None:
            named[name] = out
        else:
            positional += out if kind == "figure" else [out]
    return positional, named


def result_files(rule):
    """The unnamed outputs of a table or figure rule (``_result_outputs``)."""
    return _result_outputs(rule)[0]


def result_named_files(rule):
    """{name: output} of a table or figure rule (``_result_outputs``)."""
    return _result_outputs(rule)[1]


def result_log(rule):
    return f"{RESULTS}/logs/{result_rules.RESULT_RULE[rule].log_path(config)}.log"


def result_benchmark(rule):
    return f"{RESULTS}/benchmarks/{result_rules.RESULT_RULE[rule].log_path(config)}.tsv"


def result_constraints(rule):
    return result_rules.RESULT_RULE[rule].constraints(config)


def result_resources(rule):
    return result_rules.RESULT_RULE[rule].resources


@functools.cache
def _result_params(rule, wildcards):
    return result_rules.RESULT_RULE[rule].params_of(config, dict(wildcards))[0]


def result_params(rule):
    """A table or figure rule's params, one input function each (of the wildcards only: Snakemake
    compares their values to decide reruns), resolved once per job from their declared sources."""

    def param(name):
        return lambda w: _result_params(rule, tuple(sorted(w.items())))[name]

    return {name: param(name) for name in result_rules.RESULT_RULE[rule].params}


# The compute rules (one block each in the stage files): every part but the script from the rule's
# kind in the job registry (featlearn.pipeline.jobs), found by the rule's name.  A job writes its own
# benchmark record, the log named `usage` (featlearn.io.usage), instead of Snakemake's `benchmark:`.


def job_message(rule):
    """What a compute job does, with its wildcards."""
    return registry.KIND[rule].message()


def job_output(rule):
    """A compute job's output pattern (a directory for a kind whose jobs write one)."""
    kind = registry.KIND[rule]
    return directory(kind.pattern("output")) if kind.suffix == "" else kind.pattern("output")


def job_log(rule):
    return registry.KIND[rule].pattern("log")


def job_usage(rule):
    return registry.KIND[rule].pattern("benchmark")


def job_constraints(rule):
    return registry.KIND[rule].wildcard_constraints()


def job_threads(rule):
    return registry.KIND[rule].job_threads(config)


def job_inputs(rule):
    """Input function of a compute job: its code, the kind's other inputs and, for a kind that runs
    numba kernels, its numba cache as ``cache`` (the ``.ready`` marker of its numba_cache job); for a
    job whose activation or loss is a config entry, that cache is the one warmed with its generated
    kernel module (model_numba_cache), and the module is its ``kernel`` (``featlearn.pipeline.kernels``)."""
    kind = registry.KIND[rule]
    script_code = code(kind.program)

    def inputs(w):
        other = {name: pattern.format(**dict(w.items())) for name, pattern in kind.inputs}
        tag = kernels.job_kernel_tag(config, kind.rule, w) if kind.warm else None
        cache = {"cache": f"{NUMBA_CACHE}/{kind.program}.ready"} if kind.warm else {}
        if tag is not None:
            cache = {"cache": f"{NUMBA_CACHE}/{tag}/{kind.program}.ready", "kernel": f"{KERNELS}/{tag}.py"}
        return {**cache, "code": script_code, **other}

    return inputs


def job_params(rule):
    """A compute job's params: ``settings`` (exactly the fields its code reads) and the registry's
    extra values, one input function each, and, where it runs numba kernels, its cache directory."""
    kind = registry.KIND[rule]

    def param(name):
        return lambda w: kind.params(config, w)[0][name]

    params = {name: param(name) for name in ("settings", *kind.param_names())}
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


def claims_inputs(w):
    """The results the claims read (``result_rules.claims_inputs``)."""
    return result_rules.claims_inputs(config)


def index_groups():
    """The results index's rows: per manifest table its name, caption, why it can be empty, and files
    (the per-sweep and per-activation tables one row each)."""
    return [
        {"table": table.name, "caption": table.caption, "empty": table.empty, "files": names}
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
