import numpy as np
import pytest

from featlearn.model.activations import ACTIVATIONS


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
