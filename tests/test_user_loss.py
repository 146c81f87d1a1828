"""Config losses (``losses:`` in the config, docs/model.md "The loss catalogue"): the parse checks,
symbolic derivatives against finite differences, the config checks, the kernel tags, and every stage
(the GD kernel and engine, the Hessian, the fixed point, the DMFT) running a config loss in a
process that loads its generated kernel module."""

import os
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pytest
import sympy
import yaml
from conftest import LOGCOSH, SWISH, TINY_CONFIG, config_error, with_logcosh, with_swish

from featlearn.model import catalogue
from featlearn.model.catalogue import BUILT_IN_LOSSES, ExpressionError, config_kernel_source, parse_loss
from featlearn.model.compiled import LOSSES
from featlearn.model.kernel_choice import MODEL_KERNEL_ENV
from featlearn.model.loss import loss_of
from featlearn.pipeline import checks, jobs, kernels

USER_LOSSES = {"logcosh": LOGCOSH, "pseudo_huber": "sqrt(1 + e**2) - 1", "quartic": "e**2/2 + e**4/4"}


def test_built_in_loss_codes():
    assert list(BUILT_IN_LOSSES) == ["square", "huber"] and LOSSES == {"square": 0, "huber": 1}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("log(cosh(z))", "unknown symbol 'z'"),
        ("kappa*e**2", "unknown symbol 'kappa'"),
        ("log(e)", "ρ is not a finite real number at e = -6"),
        ("e**2/2 +", "cannot parse"),
    ],
)
def test_a_bad_loss_is_one_line_naming_the_problem(text, message):
    with pytest.raises(ExpressionError, match=message) as error:
        parse_loss(text)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("text", [*USER_LOSSES.values(), *BUILT_IN_LOSSES.values()])
def test_symbolic_loss_derivatives_match_finite_differences(text):
    namespace = {**catalogue.LOSS_NAMESPACE, "kappa": catalogue.kappa}
    triple = catalogue.derivatives(parse_loss(text, namespace), catalogue.e, ("ρ", "ψ", "ρ″"))
    rho, psi, curvature = (
        sympy.lambdify(catalogue.e, part.subs(catalogue.kappa, 0.7), modules="math") for part in triple
    )
    h = 1e-5
    for e in np.linspace(-4.0, 4.0, 81) + 0.013:  # away from Huber's kinks at ±0.7
        np.testing.assert_allclose(psi(e), (rho(e + h) - rho(e - h)) / (2 * h), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(curvature(e), (psi(e + h) - psi(e - h)) / (2 * h), rtol=1e-6, atol=1e-8)


# --- the config checks and the kernel tags ----------------------------------------------------------


def test_a_config_loss_passes_the_checks_and_names_its_kernel():
    config = with_logcosh(TINY_CONFIG)
    checks.check_config(config)
    tag = kernels.kernel_tag(config, "gelu", "logcosh")
    assert tag.startswith("loss-logcosh_") and len(tag) == len("loss-logcosh_") + kernels.HASH_DIGITS
    assert kernels.kernel_tags(config) == {tag: (None, ("logcosh", LOGCOSH))}
    assert kernels.kernel_tag(config, "gelu", "square") is None and kernels.kernel_tag(config, "gelu") is None
    both = with_logcosh(with_swish(TINY_CONFIG))
    pair = kernels.kernel_tag(both, "swish", "logcosh")
    assert pair == f"{kernels.kernel_tag(both, 'swish')}__{tag}"
    assert set(kernels.kernel_tags(both)) == {pair, tag, kernels.kernel_tag(both, "swish")}
    w = SimpleNamespace
    assert kernels.job_kernel_tag(config, "sweep_block", w(sweep="gelu_logcosh", d="60", block="0")) == tag
    assert kernels.job_kernel_tag(config, "sweep_block", w(sweep="gelu", d="60", block="0")) is None


@pytest.mark.parametrize(
    ("edit", "key", "message"),
    [
        (lambda c: c["losses"].update(logcosh="log(cosh(x))"), "losses.logcosh", "unknown symbol 'x'"),
        (lambda c: c["losses"].update(huber="e**2"), "losses.huber", "is a built-in loss"),
        (
            lambda c: c["sweeps"]["gelu_logcosh"].update(loss="logcsh"),
            "sweeps.gelu_logcosh.loss",
            "'logcsh' is neither a built-in loss (square, huber) nor in losses",
        ),
        (
            lambda c: c["sweeps"]["gelu_logcosh"].update(loss="huber"),
            "sweeps.gelu_logcosh.loss",
            "Huber's loss needs its threshold huber",
        ),
        (
            lambda c: c["sweeps"]["gelu_logcosh"].update(huber=0.5),
            "sweeps.gelu_logcosh.huber",
            "huber is Huber's threshold, but the loss is 'logcosh'",
        ),
        (lambda c: c["defaults"].update(loss="logcosh"), "defaults.loss", "sweeps and the designs"),
    ],
)
def test_the_checks_name_the_key_of_a_bad_loss(edit, key, message):
    config = with_logcosh(TINY_CONFIG)
    edit(config)
    error = config_error(config)
    assert error.key == key and message in str(error)


def test_huber_as_a_named_loss_is_huber_with_its_threshold():
    """``loss: huber`` with ``huber: 0.5`` passes the checks and is the loss ``huber: 0.5`` implies."""
    config = with_logcosh(TINY_CONFIG)
    sweep = config["sweeps"]["gelu_logcosh"]
    sweep.update(loss="huber", huber=0.5)
    checks.check_config(config)
    named = loss_of(jobs.settings_of("sweep_block", config, sweep="gelu_logcosh"))
    sweep["loss"] = None
    implied = loss_of(jobs.settings_of("sweep_block", config, sweep="gelu_logcosh"))
    assert named == implied == (LOSSES["huber"], 0.5)


# --- every stage in a job's process ------------------------------------------------------------------

IN_A_JOB = """
import math
import sys
from dataclasses import replace

import numpy as np
import yaml

from featlearn.gd import kernel as gd_kernel
from featlearn.gd import trials
from featlearn.model import network
from featlearn.model.compiled import LOSSES
from featlearn.model.loss import is_square, loss_of, loss_parts, named_loss
from featlearn.pipeline.jobs import settings_of
from featlearn.theory import dmft
from featlearn.theory.fixed_point import FixedPointSolver

assert LOSSES == {"square": 0, "huber": 1, "logcosh": 2}
logcosh = named_loss("logcosh")
e = np.linspace(-30.0, 30.0, 601)
closed = (np.log(np.cosh(e)), np.tanh(e), 1.0 / np.cosh(e) ** 2)
for got, want in zip(loss_parts(e, logcosh), closed, strict=True):
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

rng = np.random.default_rng(3)
x = rng.standard_normal((300, 9))
y = (x[:, 0] ** 2 - 1) * 2.0
theta, a, b = rng.standard_normal((2, 9)) / 3, np.array([1.5, -0.7]), np.array([0.1, -0.2])
grad = network.gradient(x, y, theta, a, b, "swish", logcosh)
h = 1e-6
fd = np.empty_like(theta)
for idx in np.ndindex(theta.shape):
    step = np.zeros_like(theta)
    step[idx] = h
    fd[idx] = (network.risk(x, y, theta + step, a, b, "swish", logcosh)
               - network.risk(x, y, theta - step, a, b, "swish", logcosh)) / (2 * h)
np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)
v = rng.standard_normal(theta.shape)
hv = network.hessian_vector_product(x, y, theta, a, b, "swish", v, logcosh)
up, down = (network.gradient(x, y, theta + s * 1e-6 * v, a, b, "swish", logcosh) for s in (1, -1))
np.testing.assert_allclose(hv, (up - down) / 2e-6, rtol=1e-4, atol=1e-7)
buffers = gd_kernel.scratch(2, 9)
risk = gd_kernel.risk_and_gradient(x, y, theta, a, b, 6, buffers, logcosh)
np.testing.assert_allclose(risk, network.risk(x, y, theta, a, b, "swish", logcosh), rtol=1e-12)
np.testing.assert_allclose(buffers.grad, grad, rtol=1e-11, atol=1e-14)

solver = FixedPointSolver("gelu", "he2", loss=logcosh)
fp = solver.solve(8.0)
law = solver.law(fp.kappa, fp.q)
z, w, omega = law.z, law.w, law.omega
from featlearn.model.loss import loss_derivatives
_, r, _ = loss_derivatives("gelu", 1.0, 0.0, law.y, z, logcosh)
assert np.max(np.abs(z + fp.kappa * r - omega)) < 1e-8
res = dmft.solve("gelu", "he2", 8.0, 1.0, 5, 4000, ("test", "logcosh"), loss=logcosh)
assert np.all(np.isfinite(res.norm2)) and res.train_loss[5] < res.train_loss[0]

config = yaml.safe_load(open(sys.argv[1]))
settings = settings_of("sweep_block", config, sweep="gelu_logcosh")
settings = replace(settings, steps=40, n_test=100, dtype="float64", record_points=10)
assert loss_of(settings) == logcosh and not is_square(loss_of(settings))
traj = trials.run_trial(settings, 40, 4.0, 0)
data, net = trials.trial_setup(settings, 40, 4.0, 0)
expected = network.risk(data["X"], data["y"], traj.theta, net.a, net.b, "gelu", logcosh)
np.testing.assert_allclose(traj.final_train_loss, expected, rtol=1e-10)
assert traj.train_loss[-1] < traj.train_loss[0], traj.train_loss
print("OK")
"""


@pytest.mark.slow
def test_every_stage_runs_a_config_loss_in_a_job_process(tmp_path):
    """A fresh interpreter loading the kernel of swish and logcosh: ρ, ψ, ρ″ against their closed
    forms; the gradient and Hessian of the NumPy reference against finite differences of its risk
    and gradient; the GD kernel against the reference; the fixed point's prox optimality (O10); a
    DMFT whose train loss decreases; a sweep trial trained on logcosh (its train loss is the
    reference risk of its final Θ)."""
    kernel = tmp_path / "kernel.py"
    kernel.write_text(config_kernel_source(("swish", SWISH), ("logcosh", LOGCOSH)))
    config = tmp_path / "config.yaml"
    config.write_text(yaml.safe_dump(with_logcosh(with_swish(TINY_CONFIG))))
    env = {**os.environ, MODEL_KERNEL_ENV: str(kernel), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    proc = subprocess.run(
        [sys.executable, "-c", IN_A_JOB, str(config)], capture_output=True, text=True, timeout=900, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["OK"]
