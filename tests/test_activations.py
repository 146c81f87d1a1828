import numpy as np
import pytest
from conftest import ALL_ACTIVATIONS

from featlearn.model.activations import activation_code, evaluate


@pytest.mark.parametrize("name", ALL_ACTIVATIONS)
def test_derivatives_match_finite_differences(name):
    z = np.linspace(-3, 3, 61) + 0.013  # avoid relu's kink at 0
    h = 1e-6
    s, ds, d2s = evaluate(name, z)
    sp, dsp, _ = evaluate(name, z + h)
    sm, dsm, _ = evaluate(name, z - h)
    np.testing.assert_allclose(ds, (sp - sm) / (2 * h), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(d2s, (dsp - dsm) / (2 * h), rtol=1e-6, atol=1e-7)


def test_closed_forms_at_known_points():
    from scipy.special import erf
    from scipy.stats import norm

    z = np.array([-1.7, 0.0, 0.4, 2.2])
    np.testing.assert_allclose(evaluate("gelu", z)[0], z * norm.cdf(z), rtol=1e-14)
    np.testing.assert_allclose(evaluate("erf", z)[0], erf(z), rtol=1e-14)
    np.testing.assert_allclose(evaluate("he2", z)[0], z**2 - 1, rtol=1e-14)
    np.testing.assert_allclose(evaluate("tanh", z)[0], np.tanh(z), rtol=1e-14)
    np.testing.assert_allclose(evaluate("relu", z)[0], np.maximum(z, 0))


def test_unknown_activation_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown activation 'softplus'"):
        activation_code("softplus")
