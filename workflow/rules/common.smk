# Helpers shared by the rules: config validation, per-sweep settings, target lists.
import os
from pathlib import Path

import jsonschema
import yaml
from snakemake.exceptions import WorkflowError


def validate_config(cfg, schema_path):
    """Validate ``cfg`` against the JSON schema; fail with one line naming the offending key."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    validator = jsonschema.Draft202012Validator(schema)
    error = next(iter(sorted(validator.iter_errors(cfg), key=lambda e: list(e.absolute_path))), None)
    if error is not None:
        key = ".".join(str(p) for p in error.absolute_path) or "<top level>"
        raise WorkflowError(f"config error at '{key}': {error.message}")


validate_config(config, workflow.source_path("../schemas/config.schema.yaml"))

RESULTS = "results"
NUMBA_CACHE = f"{RESULTS}/.numba_cache"
ENV = "../../envs/featlearn.yaml"
PKG = Path(workflow.basedir) / "src" / "featlearn"
def code(*modules):
    """Paths of featlearn modules a rule depends on (inputs, so that editing them reruns it)."""
    return [str(PKG / m) for m in modules]


# The numerics a simulation depends on: editing any of them reruns the simulations (mtime trigger).
ENGINE_SOURCES = code(
    "activations.py",
    "links.py",
    "seeds.py",
    "data.py",
    "network.py",
    "gd_kernel.py",
    "gd.py",
    "metrics.py",
    "sweep.py",
    "spectral.py",
)


def canonical(params):
    """A dict with sorted keys, recursively: Snakemake compares params in order, so key order in a
    config file must not make a job look changed."""
    return {k: canonical(v) if isinstance(v, dict) else v for k, v in sorted(params.items())}


def fmt(value):
    """Canonical text of a number in a file name (δ = 6.0 -> '6')."""
    return f"{float(value):g}"


def run_settings(group, name):
    """Merged settings of a sweep or grokking run: defaults < per-activation lr/steps < overrides.

    The lists of d and δ and the figure name are left out, so that editing them reruns no
    existing cell.
    """
    spec = config[group][name]
    act = spec["activation"]
    merged = {
        **config["defaults"],
        "lr": config["learning_rate"][act],
        "steps": config["steps"][act],
        **spec,
        "seed": config["seed"],
        "experiment": name,
    }
    if group == "sweeps":
        for key in ("d", "delta", "figure"):
            del merged[key]
    return canonical(merged)


def hessian_settings(activation):
    """Settings of a plateau cell: the defaults in float64, the activation's lr and step budget."""
    spec = config["hessian"]
    return canonical({
        **config["defaults"],
        "dtype": "float64",
        "activation": activation,
        "lr": config["learning_rate"][activation],
        "steps": config["steps"][activation],
        "seed": config["seed"],
        "experiment": "hessian",
        **{k: spec[k] for k in ("d", "seeds", "grad_tol", "checkpoints", "k")},
    })


def sweep_cells(name):
    """Result files of every (d, δ) cell of sweep ``name``."""
    spec = config["sweeps"][name]
    return [
        f"{RESULTS}/sweeps/{name}/d{d}_delta{fmt(delta)}.npz" for d in spec["d"] for delta in spec["delta"]
    ]


def sweep_of_figure(stem):
    """The sweep whose figure has file stem ``stem``."""
    return next(name for name, spec in config["sweeps"].items() if spec["figure"] == stem)


def figure_files(stem):
    return [f"{RESULTS}/figures/{stem}.pdf", f"{RESULTS}/figures/{stem}.png"]


def all_targets():
    targets = [f"{RESULTS}/tables/thresholds.csv"]
    for spec in config["sweeps"].values():
        targets += figure_files(spec["figure"])
    for name in config["grokking"]:
        targets += figure_files(name)
    targets += figure_files(config["figure1"]["stem"])
    targets += figure_files(config["width"]["stem"]) + figure_files(config["easy_hard"]["stem"])
    for stem in ("fig7_hessian_spectrum", "fig8_hessian_vs_delta", "fig8_hessian_trajectory", "fig_escape_steps"):
        targets += figure_files(stem)
    for stem in THEORY_FIGURES:
        targets += figure_files(stem)
    targets += [f"{RESULTS}/tables/{name}" for name in THEORY_TABLES]
    return targets


def theory_settings(model):
    """Settings of a theory model: defaults in float64, the activation's lr, the model's overrides.

    The δ grid and N are left out (passed separately) so that the settings name the model only.
    """
    spec = {k: v for k, v in config["theory"]["models"][model].items() if k not in ("delta", "paths")}
    return canonical({
        **config["defaults"],
        "dtype": "float64",
        "lr": config["learning_rate"][spec["activation"]],
        **spec,
        "seed": config["seed"],
        "experiment": f"theory_{model}",
    })


def check_theory_config(theory):
    """Cross-key checks the schema cannot express; one line naming the key."""
    horizon, models = theory["horizon"], theory["models"]
    for key, steps in (("report_steps", theory["report_steps"]), ("simulation.spectrum_steps", theory["simulation"]["spectrum_steps"])):
        if max(steps) > horizon:
            raise WorkflowError(f"config error at 'theory.{key}': step {max(steps)} is beyond the horizon {horizon}")
    for key, names in (("simulation.delta", theory["simulation"]["delta"]), ("hessian_overlay", theory["hessian_overlay"].values())):
        for name in names:
            if name not in models:
                raise WorkflowError(f"config error at 'theory.{key}': {name!r} is not a theory model")
    val = theory["validation"]
    if val["model"] not in theory["simulation"]["delta"]:
        raise WorkflowError(f"config error at 'theory.validation.model': {val['model']!r} has no simulation.delta")
    if val["step"] not in theory["simulation"]["spectrum_steps"]:
        raise WorkflowError(f"config error at 'theory.validation.step': {val['step']} is not a spectrum step")


check_theory_config(config["theory"])


def main_paths(model):
    """The model's main number of DMFT paths N (its own ``paths`` or the global one)."""
    return config["theory"]["models"][model].get("paths", config["theory"]["paths"])


def theory_paths(model):
    """Every N the DMFT of ``model`` is solved with (the main value first)."""
    main = main_paths(model)
    return [main] + [n for n in config["theory"]["paths_scan"] if n != main]


def dmft_file(model, paths):
    return f"{RESULTS}/theory/dmft/{model}_N{paths}.npz"


def theory_sim_cells(model):
    spec = config["theory"]["simulation"]
    return [f"{RESULTS}/theory/sim/{model}/delta{fmt(dl)}.npz" for dl in spec["delta"].get(model, [])]


THEORY_FIGURES = ("fig9_dmft_vs_simulation", "fig10_outlier_vs_time", "fig10_delta_nn")
THEORY_TABLES = (
    "theory_thresholds.csv",
    "theory_thresholds.tex",
    "dmft_vs_simulation.csv",
    "outlier_vs_simulation.csv",
    "bounded_link_validation.csv",
)


def theory_inputs():
    models = config["theory"]["models"]
    return {
        "dmft": [dmft_file(m, n) for m in models for n in theory_paths(m)],
        "fixed_point": [f"{RESULTS}/theory/fixed_point/{m}.npz" for m in models],
        "sim": [f for m in models for f in theory_sim_cells(m)],
    }
