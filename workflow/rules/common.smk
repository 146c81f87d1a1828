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
    """A dict with sorted keys: Snakemake compares params in order, so key order in a config file
    must not make a job look changed."""
    return dict(sorted(params.items()))


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
    return targets
