"""The lockstep engine of the spectral-threshold cells (featlearn.hessian.batched_plateau) against
the CPU cells it stands in for, on NumPy (its GPU run uses CuPy with the same code)."""

import numpy as np
import pytest
from conftest import SETTINGS

from featlearn.hessian import batched_plateau as bp
from featlearn.hessian import plateau
from featlearn.model.activations import evaluate
from featlearn.pipeline.jobs import KIND

ScanSettings = KIND["spectral_threshold_cell"].settings


def scan_settings(activation, **changes):
    base = {k: v for k, v in SETTINGS.asdict().items() if k in ScanSettings.field_names()}
    fields = {"activation": activation, "lr": 0.05, "steps": 3000, "d": 40, "seeds": 3}
    fields |= {"grad_tol": 1e-5, "k": 2}
    return ScanSettings(**base | fields | changes)


@pytest.mark.parametrize("name", ["gelu", "quad", "tanh", "erf", "he2", "relu"])
def test_activation_functions_are_the_catalogues(name):
    z = np.linspace(-4.0, 4.0, 2001)
    value, slope = bp.activation_functions(name)(z)
    s, ds, _ = evaluate(name, z)
    np.testing.assert_allclose(value, s, rtol=0, atol=1e-14)
    np.testing.assert_allclose(slope, ds, rtol=0, atol=1e-14)


@pytest.mark.parametrize(
    ("activation", "delta"), [pytest.param("gelu", 6.0, marks=pytest.mark.slow), ("quad", 5.0)]
)
def test_lockstep_cell_is_the_cpu_cell_to_rounding(activation, delta):
    """Same data, same stopping steps, every recorded quantity within rounding of the numba cell."""
    settings = scan_settings(activation)
    quiet = lambda *_: None  # noqa: E731
    cpu = plateau.threshold_scan_cell(settings, delta, log=quiet)
    lockstep = bp.threshold_scan_cell(settings, delta, log=quiet)
    assert set(lockstep) == set(cpu)
    assert (cpu["final_step"] > 0).all() and cpu["converged"].any()
    np.testing.assert_array_equal(lockstep["final_step"], cpu["final_step"])
    np.testing.assert_array_equal(lockstep["converged"], cpu["converged"])
    for key in set(cpu) - {"final_step", "converged", "diverged"}:
        np.testing.assert_allclose(lockstep[key], cpu[key], rtol=1e-9, atol=1e-11, err_msg=key)


def test_a_seed_at_its_budget_records_the_last_step_like_the_engine():
    """A budget too short to converge: the losses and norms at t = T are recorded, not converged."""
    settings = scan_settings("quad", steps=5, seeds=2)
    quiet = lambda *_: None  # noqa: E731
    cpu = plateau.threshold_scan_cell(settings, 5.0, log=quiet)
    lockstep = bp.threshold_scan_cell(settings, 5.0, log=quiet)
    assert (cpu["final_step"] == 5).all() and not cpu["converged"].any()
    np.testing.assert_array_equal(lockstep["final_step"], cpu["final_step"])
    np.testing.assert_allclose(lockstep["train_loss"], cpu["train_loss"], rtol=1e-12)
    np.testing.assert_allclose(lockstep["norm"], cpu["norm"], rtol=1e-12)


def test_piecewise_activations_are_refused_off_numpy():
    class NotNumpy:
        pass

    with pytest.raises(ValueError, match="piecewise"):
        bp.activation_functions("relu", xp=NotNumpy)
