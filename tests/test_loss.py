"""The losses (docs/model.md, eq. (M3a)): the catalogue's square and Huber's losses against their
closed forms, the single-neuron loss with its z-derivatives and the second layer's gradients against
the NumPy reference and finite differences."""

import math

import numpy as np
import pytest

from featlearn.model import network
from featlearn.model.loss import (
    SQUARE,
    is_square,
    loss_derivatives,
    loss_of,
    loss_parts,
    named_loss,
    second_layer_derivatives,
)
from featlearn.theory.fixed_point import FixedPointSolver

HUBER = named_loss("huber", 0.4)


def closed_form(e, kappa):
    """(ρ, ψ, ρ″) of Huber's loss with threshold κ written out (the square loss's for κ = ∞): the
    hand-written formulas the catalogue entries replaced."""
    inside = np.abs(e) <= kappa
    rho = (
        np.where(inside, 0.5 * e * e, kappa * np.abs(e) - 0.5 * kappa * kappa)
        if np.isfinite(kappa)
        else 0.5 * e * e
    )
    return rho, np.clip(e, -kappa, kappa), inside.astype(float)


@pytest.mark.parametrize("loss", [SQUARE, HUBER, named_loss("huber", 2.5), named_loss("huber", math.inf)])
def test_built_in_losses_are_their_closed_forms(loss):
    e = np.concatenate([np.linspace(-6, 6, 1201), [0.4, -0.4, 2.5, -2.5, 0.0, 1e-300]])
    for got, want in zip(loss_parts(e, loss), closed_form(e, loss.kappa), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_the_loss_of_a_settings_object():
    class Settings:
        loss, huber = None, None

    plain, huber, named = Settings(), Settings(), Settings()
    huber.huber = 0.7
    named.loss = "square"
    assert loss_of(plain) == SQUARE and loss_of(named) == SQUARE and is_square(loss_of(plain))
    assert loss_of(huber) == named_loss("huber", 0.7) and not is_square(loss_of(huber))
    assert loss_of(object()) == SQUARE
    with pytest.raises(ValueError, match="unknown loss 'nope'"):
        named_loss("nope")


@pytest.mark.parametrize("loss", [SQUARE, HUBER])
@pytest.mark.parametrize("name", ["gelu", "quad", "tanh"])
def test_loss_derivatives_match_the_reference_and_finite_differences(rng, name, loss):
    """ℓ against ρ of the residual's closed form; ℓ′ and ℓ″ against central differences in z (points
    within 1e-3 of a kink |e| = κ_H left out)."""
    a, b = 1.3, 0.2
    z = rng.standard_normal(400)
    y = rng.standard_normal(400) ** 2 - 1
    ell, d1, d2 = loss_derivatives(name, a, b, y, z, loss)
    e = network.predict(z[:, None], np.ones((1, 1)), np.array([a]), np.array([b]), name) - y
    np.testing.assert_allclose(ell, closed_form(e, loss.kappa)[0], rtol=1e-12)
    h = 1e-5
    up, down = loss_derivatives(name, a, b, y, z + h, loss), loss_derivatives(name, a, b, y, z - h, loss)
    smooth = np.abs(np.abs(e) - loss.kappa) > 1e-3
    if np.isfinite(loss.kappa):
        assert 0.1 < np.mean(np.abs(e) > loss.kappa) < 0.9  # both pieces are exercised
    np.testing.assert_allclose(d1[smooth], ((up[0] - down[0]) / (2 * h))[smooth], rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(d2[smooth], ((up[1] - down[1]) / (2 * h))[smooth], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("loss", [SQUARE, HUBER])
def test_second_layer_derivatives_average_to_the_network_gradient(rng, loss):
    """(Ga), (Gb) for one neuron: the sample mean of (∂ℓ/∂a, ∂ℓ/∂b) is ``network.gradient_second_layer``."""
    x = rng.standard_normal((300, 7))
    y = rng.standard_normal(300) ** 2 - 1
    theta, a, b = rng.standard_normal((1, 7)) / np.sqrt(7), np.array([0.8]), np.array([-0.3])
    grad_a, grad_b = second_layer_derivatives("gelu", a[0], b[0], y, x @ theta[0], loss)
    ref = network.gradient_second_layer(x, y, theta, a, b, "gelu", loss)
    np.testing.assert_allclose([grad_a.mean(), grad_b.mean()], [ref[0][0], ref[1][0]], rtol=1e-12)


def test_huber_prox_is_optimal_and_a_minimiser():
    """The fixed point's prox (O10) with Huber's loss (κ_H = 0.5, GeLU, y = z² − 1, δ = 8): z + κℓ′(y, z)
    = ω at every node, 1 + κℓ″ ≥ 0, and it differs from the square loss's solution."""
    solver = FixedPointSolver("gelu", "he2", loss=named_loss("huber", 0.5))
    fp = solver.solve(8.0)
    law = solver.law(fp.kappa, fp.q)
    z, w, omega = law.z, law.w, law.omega
    _, r, _ = loss_derivatives("gelu", 1.0, 0.0, law.y, z, named_loss("huber", 0.5))
    assert np.max(np.abs(z + fp.kappa * r - omega)) < 1e-8
    assert np.all(1 + fp.kappa * w >= -1e-9)
    square = FixedPointSolver("gelu", "he2").solve(8.0)
    assert abs(square.q - fp.q) > 0.01 * fp.q
