"""The exact population risk (Gauss–Hermite) against a closed form and 10⁶-sample Monte Carlo."""

import numpy as np
import pytest

from featlearn.model import links, network
from featlearn.model.population import population_risk


def test_closed_form_for_a_quadratic_neuron_on_the_square_link():
    """σ(z) = z², y = g², θ = αe₁ + βe₂: ½E[(g² − w²)²] = ½(3 − 2(s² + 2α²) + 3s⁴), s² = α² + β²."""
    alpha, beta = 0.8, 0.45
    theta = np.zeros((1, 6))
    theta[0, :2] = alpha, beta
    s2 = alpha**2 + beta**2
    exact = 0.5 * (3 - 2 * (s2 + 2 * alpha**2) + 3 * s2**2)
    assert population_risk(theta, 1.0, 0.0, "quad", np.eye(6, 1), "square") == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    ("link", "activation", "m", "k"),
    [
        ("he2", "gelu", 1, 1),
        ("square", "gelu", 1, 1),
        ("bump", "tanh", 1, 1),
        ("easy_hard", "gelu", 2, 2),
        ("he2", "relu", 2, 1),
    ],
)
def test_quadrature_matches_a_million_samples(link, activation, m, k):
    rng = np.random.default_rng(7)
    d, n, noise = 20, 1_000_000, 0.1
    theta_star = np.linalg.qr(rng.standard_normal((d, k)))[0]  # a rotated teacher frame
    theta = rng.standard_normal((m, d)) / np.sqrt(d) + 0.6 * theta_star[:, 0]
    a, b = rng.uniform(0.5, 1.5, m), rng.uniform(-0.3, 0.3, m)
    exact = population_risk(theta, a, b, activation, theta_star, link, noise)
    x = rng.standard_normal((n, d))
    y = links.get_link(link).h(x @ theta_star) + noise * rng.standard_normal(n)
    loss = 0.5 * (y - network.predict(x, theta, a, b, activation)) ** 2
    assert abs(exact - loss.mean()) < 4 * loss.std() / np.sqrt(n)
