"""The single-neuron loss (docs/model.md, eq. (M3a)): square and Huber's, with its z-derivatives and
the second layer's gradients, against the NumPy reference and finite differences."""

import numpy as np
import pytest

from featlearn.model import network
from featlearn.model.loss import loss_derivatives, second_layer_derivatives
from featlearn.theory.fixed_point import FixedPointSolver


@pytest.mark.parametrize("huber", [np.inf, 0.4])
@pytest.mark.parametrize("name", ["gelu", "quad", "tanh"])
def test_loss_derivatives_match_the_reference_and_finite_differences(rng, name, huber):
    """ℓ against ρ of ``network.huber_parts``; ℓ′ and ℓ″ against central differences in z (points
    within 1e-3 of a kink |e| = κ_H left out)."""
    a, b = 1.3, 0.2
    z = rng.standard_normal(400)
    y = rng.standard_normal(400) ** 2 - 1
    ell, d1, d2 = loss_derivatives(name, a, b, y, z, huber)
    e = network.predict(z[:, None], np.ones((1, 1)), np.array([a]), np.array([b]), name) - y
    np.testing.assert_allclose(ell, network.huber_parts(e, huber)[0], rtol=1e-12)
    h = 1e-5
    up, down = loss_derivatives(name, a, b, y, z + h, huber), loss_derivatives(name, a, b, y, z - h, huber)
    smooth = np.abs(np.abs(e) - huber) > 1e-3
    if np.isfinite(huber):
        assert 0.1 < np.mean(np.abs(e) > huber) < 0.9  # both pieces are exercised
    np.testing.assert_allclose(d1[smooth], ((up[0] - down[0]) / (2 * h))[smooth], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(d2[smooth], ((up[1] - down[1]) / (2 * h))[smooth], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("huber", [np.inf, 0.4])
def test_second_layer_derivatives_average_to_the_network_gradient(rng, huber):
    """(Ga), (Gb) for one neuron: the sample mean of (∂ℓ/∂a, ∂ℓ/∂b) is ``network.gradient_second_layer``."""
    x = rng.standard_normal((300, 7))
    y = rng.standard_normal(300) ** 2 - 1
    theta, a, b = rng.standard_normal((1, 7)) / np.sqrt(7), np.array([0.8]), np.array([-0.3])
    grad_a, grad_b = second_layer_derivatives("gelu", a[0], b[0], y, x @ theta[0], huber)
    ref = network.gradient_second_layer(x, y, theta, a, b, "gelu", huber)
    np.testing.assert_allclose([grad_a.mean(), grad_b.mean()], [ref[0][0], ref[1][0]], rtol=1e-12)


def test_huber_prox_is_optimal_and_a_minimiser():
    """The fixed point's prox (O10) with Huber's loss (κ_H = 0.5, GeLU, y = z² − 1, δ = 8): z + κℓ′(y, z)
    = ω at every node, 1 + κℓ″ ≥ 0, and it differs from the square loss's solution."""
    solver = FixedPointSolver("gelu", "he2", nodes=40, huber=0.5)
    fp = solver.solve(8.0)
    z, w, omega = solver.law(fp.kappa, fp.q)
    _, r, _ = loss_derivatives("gelu", 1.0, 0.0, solver.y, z, 0.5)
    assert np.max(np.abs(z + fp.kappa * r - omega)) < 1e-8
    assert np.all(1 + fp.kappa * w >= -1e-9)
    square = FixedPointSolver("gelu", "he2", nodes=40).solve(8.0)
    assert abs(square.q - fp.q) > 0.01 * fp.q
