"""Config activations (``activations:`` in the config, docs/model.md): the checks, the generated
kernel module a job loads through ``FEATLEARN_MODEL_KERNEL``, and a sweep of one built end to end
beside built-in jobs that it leaves alone (and, in the same tree, a sweep of a config loss,
``losses:``)."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest
import yaml
from conftest import (
    ROOT,
    SWISH,
    SWISH_SWEEP,
    TINY,
    TINY_CONFIG,
    config_error,
    snakemake,
    summary_plan,
    with_logcosh,
    with_swish,
)
from tiny_build import copy_workflow

from featlearn.model.catalogue import BUILT_IN, ExpressionError, config_kernel_source, parse
from featlearn.model.kernel_choice import MODEL_KERNEL_ENV
from featlearn.pipeline import checks, jobs, kernels

# --- the checks ------------------------------------------------------------------------------------


def parse_error(text):
    """The one-line ``ExpressionError`` message of ``text``."""
    with pytest.raises(ExpressionError) as error:
        parse(text)
    return str(error.value)


BAD = "z/(1 + exq(-z))"
ONE_LINE_ERRORS = {
    "bad expression": (
        {"activations": {"swish": BAD}},
        f"config error at 'activations.swish': {parse_error(BAD)}",
    ),
    "misspelt name": (
        {"sweeps": {"swish": {**SWISH_SWEEP, "activation": "swsh"}}},
        "config error at 'sweeps.swish.activation': 'swsh' is neither a built-in activation "
        f"({', '.join(BUILT_IN)}) nor in activations",
    ),
}
"""case -> (sections replaced in the tiny config with swish, the one line the check gives)."""


def erroneous(case):
    """The tiny config with swish and the error of ``ONE_LINE_ERRORS[case]``."""
    config = with_swish(TINY_CONFIG)
    for section, entries in ONE_LINE_ERRORS[case][0].items():
        config[section] |= entries
    return config


def test_a_config_activation_passes_the_checks_and_names_its_kernel():
    config = with_swish(TINY_CONFIG)
    checks.check_config(config)
    tag = kernels.kernel_tag(config, "swish")
    assert tag.startswith("swish_") and len(tag) == len("swish_") + kernels.HASH_DIGITS
    assert kernels.kernel_tags(config) == {tag: (("swish", SWISH), None)}
    assert kernels.kernel_tag(config, "gelu") is None
    assert kernels.kernel_tag(with_swish(TINY_CONFIG, "z/(1 + exp(-1.0*z))"), "swish") != tag


def test_only_jobs_of_the_config_activation_get_its_kernel():
    config = with_swish(TINY_CONFIG)
    config["hessian"]["delta"]["swish"] = [4.0]
    w = SimpleNamespace
    assert kernels.job_kernel_tag(config, "sweep_block", w(sweep="swish", d="60", block="0")) is not None
    assert kernels.job_kernel_tag(config, "hessian_cell", w(activation="swish")) is not None
    assert kernels.job_kernel_tag(config, "sweep_block", w(sweep="gelu", d="60", block="0")) is None
    assert kernels.job_kernel_tag(config, "dmft_model", w(model="quad")) is None
    assert kernels.job_kernel_tag(TINY_CONFIG, "sweep_block", w(sweep="gelu", d="60", block="0")) is None


def test_adding_a_config_activation_changes_the_params_of_no_job():
    """The params of every job of the tiny config are the same once swish and its sweep are added;
    the new jobs are the swish sweep's."""
    before = jobs.params_by_output(TINY_CONFIG)
    after = jobs.params_by_output(with_swish(TINY_CONFIG))
    assert {out: after[out] for out in before} == before
    assert after.keys() - before.keys() == set(
        jobs.outputs(with_swish(TINY_CONFIG), "sweep_block", sweep="swish")
    )


@pytest.mark.parametrize("case", sorted(ONE_LINE_ERRORS))
def test_the_checks_give_one_line_naming_the_key(case):
    assert str(config_error(erroneous(case))) == ONE_LINE_ERRORS[case][1]


def test_every_use_of_an_activation_is_checked_and_no_built_in_name_is_taken():
    config = with_swish(TINY_CONFIG)
    config["steps"]["swsh"] = config["steps"].pop("swish")
    assert config_error(config).key == "steps.swsh"
    config = with_swish(TINY_CONFIG)
    config["activations"]["gelu"] = "z*Phi(z)"
    assert config_error(config).key == "activations.gelu"


@pytest.mark.parametrize("case", sorted(ONE_LINE_ERRORS))
def test_snakemake_fails_before_any_job_with_that_line(tmp_path, case):
    path = tmp_path / "config.yaml"
    path.write_text(yaml.safe_dump(erroneous(case)))
    proc = snakemake(ROOT, "-n", "--configfile", str(path), check=False)
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "config error at" in ln]
    assert proc.returncode != 0 and len(lines) == 1, proc.stderr[-2000:]
    assert ONE_LINE_ERRORS[case][1] in lines[0]
    assert "Job stats" not in proc.stdout


# --- the generated kernel in a job's process -----------------------------------------------------------

IN_A_JOB = """
import sys
from dataclasses import replace

import numpy as np
import yaml

from featlearn.model import _model_kernel as built_in
from featlearn.model.activations import ACTIVATIONS, activation, activation_code, evaluate

assert ACTIVATIONS == {**built_in.ACTIVATIONS, "swish": 6} and activation_code("swish") == 6
for code in built_in.ACTIVATIONS.values():
    assert activation(code, 0.37) == built_in.activation(code, 0.37)

z = np.linspace(-8.0, 8.0, 161)
sig = 1.0 / (1.0 + np.exp(-z))
closed = (z * sig, sig + z * sig * (1 - sig), sig * (1 - sig) * (2 + z * (1 - 2 * sig)))
for got, want in zip(evaluate("swish", z), closed, strict=True):
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

from featlearn.gd import trials
from featlearn.pipeline.jobs import settings_of

config = yaml.safe_load(open(sys.argv[1]))
s = settings_of("sweep_block", config, sweep="swish")
settings = replace(s, steps=30, n_test=100, dtype="float64", record_points=10)
traj = trials.run_trial(settings, 40, 4.0, 0)
assert settings.m == 1 and settings.activation == "swish"
assert np.isfinite(traj.train_loss[-1]) and traj.train_loss[-1] < traj.train_loss[0], traj.train_loss
print("OK")
"""


@pytest.mark.slow
def test_a_job_loads_the_generated_kernel_named_by_the_environment(tmp_path):
    """A fresh interpreter with ``FEATLEARN_MODEL_KERNEL`` set runs swish through the package:
    σ, σ′, σ″ against the closed forms, the built-in codes unchanged, one GD trial that learns."""
    kernel = tmp_path / "swish_kernel.py"
    kernel.write_text(config_kernel_source(("swish", SWISH)))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(with_swish(TINY_CONFIG)))
    env = {**os.environ, MODEL_KERNEL_ENV: str(kernel), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", IN_A_JOB, str(config)], capture_output=True, text=True, timeout=600, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["OK"]


def test_the_kernel_cannot_be_chosen_after_activations_is_imported():
    code = (
        "import featlearn.model.activations\n"
        "from featlearn.model.kernel_choice import use_model_kernel\n"
        "use_model_kernel('x.py')"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode != 0 and "imported before its kernel was set" in proc.stderr


# --- end to end ------------------------------------------------------------------------------------------

BUILT = "results/tables/gelu_cells.csv"
TARGET = "results/tables/swish_cells.csv"
LOSS_TARGET = "results/tables/gelu_logcosh_cells.csv"


@pytest.fixture(scope="module")
def swish_tree(tmp_path_factory):
    """A tiny workflow with the gelu sweep built under the tiny config, then the swish sweep built
    under the tiny config with swish added (``swish.yaml``, a complete config), then a GeLU sweep on
    the config loss logcosh (``logcosh.yaml``: swish and logcosh added)."""
    wd = copy_workflow(tmp_path_factory.mktemp("swish"), TINY)
    snakemake(wd, BUILT)
    (wd / "swish.yaml").write_text(yaml.safe_dump(with_swish(TINY_CONFIG)))
    plan = summary_plan(wd, wd / "swish.yaml")  # before swish is built
    snakemake(wd, TARGET, "--configfile", "swish.yaml")
    (wd / "logcosh.yaml").write_text(yaml.safe_dump(with_logcosh(with_swish(TINY_CONFIG))))
    snakemake(wd, LOSS_TARGET, "--configfile", "logcosh.yaml")
    return wd, plan


@pytest.mark.builds
def test_a_sweep_of_a_config_loss_runs_end_to_end_with_its_own_kernel(swish_tree):
    """The logcosh sweep's table has its cells; its jobs ran the generated kernel of logcosh (tag
    ``loss-logcosh_<hash>``, with its numba cache); the built gelu and swish sweeps are up to date
    under the config with logcosh."""
    wd, _ = swish_tree
    rows = (wd / LOSS_TARGET).read_text().splitlines()
    assert len(rows) == 1 + len(SWISH_SWEEP["delta"])
    assert all(row.startswith("gelu_logcosh,gelu,") for row in rows[1:])
    tag = kernels.kernel_tag(with_logcosh(TINY_CONFIG), "gelu", "logcosh")
    assert "log(cosh(e))" in (wd / "results" / ".kernels" / f"{tag}.py").read_text()
    assert any((wd / "results" / ".numba_cache" / tag / "run_cell").rglob(f"{tag}.rho-*.nbi"))
    nothing = snakemake(wd, "-n", BUILT, TARGET, LOSS_TARGET, "--configfile", "logcosh.yaml")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr


@pytest.mark.builds
def test_a_sweep_of_a_config_activation_runs_end_to_end(swish_tree):
    wd, _ = swish_tree
    rows = (wd / TARGET).read_text().splitlines()
    assert rows[0].startswith("sweep,activation,") and len(rows) == 1 + len(SWISH_SWEEP["delta"])
    assert all(row.startswith("swish,swish,") for row in rows[1:])
    tag = kernels.kernel_tag(with_swish(TINY_CONFIG), "swish")
    assert "swish" in (wd / "results" / ".kernels" / f"{tag}.py").read_text()
    assert any((wd / "results" / ".numba_cache" / tag / "run_cell").rglob(f"{tag}.activation-*.nbi"))
    assert not any((wd / "results" / ".numba_cache" / "run_cell").rglob("swish_*"))


@pytest.mark.builds
def test_adding_a_config_activation_reruns_no_built_job(swish_tree):
    """Under the config with swish, every output the tiny build made (the gelu sweep's blocks and
    tables, its numba cache) is up to date; swish's kernel, cache, blocks and tables are to run."""
    wd, plan = swish_tree
    built = {BUILT, "results/tables/gelu_thresholds.csv", "results/.numba_cache/run_cell.ready"}
    built |= set(jobs.outputs(TINY_CONFIG, "sweep_block", sweep="gelu"))
    assert {out: plan[out][1] for out in built} == dict.fromkeys(built, "no update")
    to_run = {rule for out, (rule, update, _) in plan.items() if "swish" in out and update != "no update"}
    assert {"model_kernel", "model_numba_cache", "sweep_block", "aggregate_sweep"} <= to_run
    nothing = snakemake(wd, "-n", BUILT, TARGET, "--configfile", "swish.yaml")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr


@pytest.mark.builds
def test_editing_the_expression_reruns_the_jobs_of_that_activation_only(swish_tree, tmp_path):
    wd, _ = swish_tree
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(with_swish(TINY_CONFIG, "z/(1 + exp(-1.0*z))")))
    plan = summary_plan(wd, edited)
    rerun = {out for out, (_, update, _) in plan.items() if update != "no update"}
    blocks = set(jobs.outputs(with_swish(TINY_CONFIG), "sweep_block", sweep="swish"))
    assert blocks <= rerun and TARGET in rerun
    assert plan[BUILT][1] == "no update"
    assert plan["results/.numba_cache/run_cell.ready"][1] == "no update"
