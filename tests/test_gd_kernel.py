import numba
import numpy as np
import pytest
from conftest import ALL_ACTIVATIONS, small_problem

from featlearn.gd import kernel as gd_kernel
from featlearn.model import network
from featlearn.model.activations import activation_code
from featlearn.model.loss import SQUARE, named_loss


def kernel(x, y, theta, a, b, name, loss=SQUARE):
    buffers = gd_kernel.scratch(*theta.shape, x.dtype)
    loss = gd_kernel.risk_and_gradient(x, y, theta, a, b, activation_code(name), buffers, loss)
    return loss, buffers.grad, buffers.grad_ab


@pytest.mark.parametrize("n", [1, 7, 130, 259])
@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("name", ALL_ACTIVATIONS)
def test_kernel_matches_numpy_reference(rng, name, m, n):
    x, y, theta, a, b = small_problem(rng, n=n, d=37, m=m)
    loss, grad, grad_ab = kernel(x, y, theta, a, b, name)
    np.testing.assert_allclose(loss, network.risk(x, y, theta, a, b, name), rtol=1e-12)
    ref = network.gradient(x, y, theta, a, b, name)
    np.testing.assert_allclose(grad, ref, rtol=1e-12, atol=1e-12 * np.abs(ref).max())
    ref_ab = np.array(network.gradient_second_layer(x, y, theta, a, b, name))
    np.testing.assert_allclose(grad_ab, ref_ab, rtol=1e-11, atol=1e-12 * np.abs(ref_ab).max())


@pytest.mark.parametrize("m", [1, 3])
def test_kernel_with_huber_loss_matches_numpy_reference(rng, m):
    """(M3a): the kernel's ψ(e) and ρ(e) against the NumPy reference, κ_H = 0.3."""
    x, y, theta, a, b = small_problem(rng, n=259, d=37, m=m)
    huber = named_loss("huber", 0.3)
    loss, grad, grad_ab = kernel(x, y, theta, a, b, "gelu", huber)
    np.testing.assert_allclose(loss, network.risk(x, y, theta, a, b, "gelu", huber), rtol=1e-12)
    np.testing.assert_allclose(
        grad, network.gradient(x, y, theta, a, b, "gelu", huber), rtol=1e-11, atol=1e-14
    )
    ref_ab = np.array(network.gradient_second_layer(x, y, theta, a, b, "gelu", huber))
    np.testing.assert_allclose(grad_ab, ref_ab, rtol=1e-11, atol=1e-14)
    assert loss < network.risk(x, y, theta, a, b, "gelu")  # ρ(e) < e²/2 beyond κ_H


def test_float32_data_close_to_float64(rng):
    """float32 X: dot products and block sums in float32, so agreement to ~1e-6 relative."""
    x, y, theta, a, b = small_problem(rng, n=3000, d=400, m=2)
    x32 = x.astype(np.float32)
    loss, grad, _ = kernel(x32, y, theta, a, b, "gelu")
    ref = network.gradient(x32.astype(np.float64), y, theta, a, b, "gelu")
    assert np.abs(grad - ref).max() < 2e-5 * np.abs(ref).max()
    assert abs(loss - network.risk(x32.astype(np.float64), y, theta, a, b, "gelu")) < 1e-5 * loss


def test_result_does_not_depend_on_thread_count(rng):
    x, y, theta, a, b = small_problem(rng, n=1001, d=90, m=2)
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = kernel(x, y, theta, a, b, "gelu")
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = kernel(x, y, theta, a, b, "gelu")
    finally:
        numba.set_num_threads(before)
    assert one[0] == many[0]
    assert np.array_equal(one[1], many[1])
    assert np.array_equal(one[2], many[2])
