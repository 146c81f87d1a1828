"""Helpers shared by the test modules (``from conftest import ...``: pytest puts tests/ on sys.path)
and the session's one tiny build, ``tiny_run``."""

import copy
import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml
from tiny_build import ROOT, TINY, tiny_build

from featlearn.model.activations import ACTIVATIONS
from featlearn.pipeline import checks
from featlearn.pipeline.jobs import KIND, KINDS

SweepSettings = KIND["sweep_block"].settings
PlateauSettings = KIND["hessian_cell"].settings
TheoryModelSettings = KIND["dmft_model"].settings
EscapeLinearSettings = KIND["escape_linear_cell"].settings

TINY_CONFIG = yaml.safe_load(TINY.read_text())
"""The tiny config, for config-level tests (checks, the registry, the workflow); numerics tests
take the settings written out below."""
SCHEMA = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
"""The config's JSON schema, as the Snakefile checks it."""


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


def small_problem(rng, n=57, d=11, m=1):
    """A small random problem (x, y, Θ, a, b) with O(1) pre-activations."""
    x = rng.standard_normal((n, d))
    y = rng.standard_normal(n) ** 2 - 1
    theta = rng.standard_normal((m, d)) / np.sqrt(d)
    a = rng.uniform(0.5, 1.5, m)
    b = rng.uniform(-0.3, 0.3, m)
    return x, y, theta, a, b


ALL_ACTIVATIONS = sorted(ACTIVATIONS)


# --- settings of the numerics tests, written out ----------------------------------------------------
# The values the tiny config gave when these tests read it: numerics tests check numbers that must not
# change when workflow/configs/tiny.yaml does.

GELU = dict(
    seed=20260201,
    activation="gelu",
    lr=1.0,
    link="he2",
    m=1,
    a=1.0,
    b=0.0,
    r0=1.0,
    init="random",
    noise=0.0,
    theta_star="e1",
    n_test=200,
)
"""The model, draws and data conventions every settings object below starts from (the tiny
config's ``defaults`` with GeLU)."""

GELU_SWEEP = SweepSettings(
    **GELU,
    experiment="gelu",
    loss_normalisation="none",
    dtype="float32",
    freeze_rho=0.9,
    escape_rho=0.5,
    success_rho=0.5,
    record_points=20,
    train=("theta",),
    huber=None,
    loss=None,
    steps=200,
    first_trial=0,
    trials=2,
    certify_check_grad=0.001,
    certify_every=50,
    certify_safety=4,
    certify_rho_tol=0.01,
    certify_grad_floor=1e-06,
)
"""A GeLU sweep on the he2 link at the quick conventions (the tiny config's gelu sweep)."""

SETTINGS = replace(
    GELU_SWEEP, seed=7, experiment="test", steps=60, n_test=100, dtype="float64", record_points=15
)
"""``GELU_SWEEP`` with a test identity and a short budget (the GD engine, Hessian and referee tests)."""

GELU_PLATEAU = PlateauSettings(
    **GELU,
    experiment="hessian",
    dtype="float64",
    steps=200,
    d=40,
    seeds=1,
    k=3,
    grad_tol=1e-05,
    checkpoints=4,
)
"""Restricted GD of GeLU at d = 40 to its plateau (the tiny config's Hessian cells)."""

_MODEL = {k: v for k, v in GELU.items() if k not in ("m", "init", "theta_star", "n_test")}
GELU_BUMP_MODEL = TheoryModelSettings(**{**_MODEL, "link": "bump"}, experiment="theory_gelu_bump")
"""The theory model of GeLU on the bump link (the tiny config's gelu_bump)."""

GELU_BUMP_ESCAPE = EscapeLinearSettings(
    **{**GELU, "link": "bump"},
    experiment="escape_gelu_bump",
    dtype="float64",
    steps=6,
    d=60,
    trials=4,
    n_paths=400,
    dmft_steps=6,
    replicas=3,
)
"""The linear-stage escape cell of gelu_bump with three DMFT replicas (the tiny config's, replicas 3)."""


# --- config activations and losses ------------------------------------------------------------------

SWISH = "z/(1 + exp(-z))"
SWISH_SWEEP = {
    "activation": "swish",
    "figure": "extra_phase_swish",
    "d": [60],
    "delta": [4.0, 12.0],
    "trials": 2,
}


def with_swish(config, expression=SWISH):
    """``config`` with the config activation swish, its learning rate and budget, and a sweep of it."""
    out = copy.deepcopy(config)
    out["activations"] = {"swish": expression}
    out["learning_rate"]["swish"] = 1.0
    out["steps"]["swish"] = 200
    out["sweeps"]["swish"] = dict(SWISH_SWEEP)
    return out


LOGCOSH = "log(cosh(e))"


def with_logcosh(config, expression=LOGCOSH):
    """``config`` with the config loss logcosh and a GeLU sweep trained on it."""
    out = copy.deepcopy(config)
    out["losses"] = {"logcosh": expression}
    out["sweeps"]["gelu_logcosh"] = {**SWISH_SWEEP, "activation": "gelu", "loss": "logcosh"}
    out["sweeps"]["gelu_logcosh"]["figure"] = "extra_phase_gelu_logcosh"
    return out


def config_error(config):
    """The ``ConfigError`` the checks raise for ``config``."""
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(config)
    return error.value


# --- Snakemake --------------------------------------------------------------------------------------


def checkout_env(workdir, env=None):
    """``env`` (default: this process's), with the checkout ``workdir``'s own package first on
    ``PYTHONPATH`` where its code differs from the installed package (``deps.foreign_package``: an
    edited copy).  A copy with the same code keeps the installed package, so its results record the
    same provenance (``git describe`` of the package) as every other build of the tests."""
    from featlearn.pipeline.deps import foreign_package

    env = dict(os.environ if env is None else env)
    if foreign_package(workdir) is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(Path(workdir) / "src"), env.get("PYTHONPATH")) if p
        )
    return env


def snakemake(workdir, *args, check=True, env=None):
    command = ["snakemake", "--cores", "2", *args]
    env = checkout_env(workdir, env)
    proc = subprocess.run(command, cwd=workdir, capture_output=True, text=True, timeout=600, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def selected_params(request, name):
    """The values of parameter ``name`` of the session's selected tests that use the requesting fixture:
    a fixture that runs every case at once runs only those a ``-k`` or a node id selected."""
    return [
        item.callspec.params[name]
        for item in request.session.items
        if request.fixturename in getattr(item, "fixturenames", ())
        and name in getattr(getattr(item, "callspec", None), "params", {})
    ]


def concurrently(function, values, workers=2):
    """{value: function(value)}, ``workers`` calls at a time: for calls that wait on a subprocess
    (Snakemake or a Python interpreter, each spending a second or more starting up)."""
    values = list(dict.fromkeys(values))
    with ThreadPoolExecutor(workers) as pool:
        return dict(zip(values, pool.map(function, values), strict=True))


def job_counts(output):
    """{rule: count} from the 'Job stats' table of a dry run."""
    table = output.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def summary_plan(workdir, configfile):
    """{output: (rule, plan, inputs)} of every output of the DAG under ``configfile``, from Snakemake's
    ``--detailed-summary`` (without a lock: several may read one tree); None for a config the schema
    or the checks reject."""
    proc = subprocess.run(
        ["snakemake", "--cores", "1", "--nolock", "--detailed-summary", "--configfile", str(configfile)],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        return None
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:] if "\t" in line]
    return {row[0]: (row[2], row[7], set(row[4].split(","))) for row in rows}


def settings_reads(path):
    """{settings class: (fields, fields read by some job)} from a tracked build's record.  A job rebuilds
    its settings from its params alone (``featlearn.io.settings``): each record is named by the kinds'
    settings class with its fields (``jobs.KINDS``; their field tuples are distinct)."""
    names = {kind.settings.field_names(): kind.settings.__name__ for kind in KINDS}
    out = {}
    for line in path.read_text().splitlines():
        record = json.loads(line)
        name = names.get(tuple(record["fields"]), record["class"])
        fields, read = out.setdefault(name, (set(record["fields"]), set()))
        read |= set(record["read"])
    return out


@pytest.fixture(scope="session")
def tiny_run(tmp_path_factory):
    """The tiny build, with every job recording which settings fields its code read; one for the
    session (copied from ``$FEATLEARN_TINY_STORE`` where a run before built it: ``tiny_build``), so a
    test only reads it (``snakemake -n``, ``--report``, ``--detailed-summary`` or a copy) or restores
    what it wrote."""
    return tiny_build(tmp_path_factory.mktemp("tiny"))
