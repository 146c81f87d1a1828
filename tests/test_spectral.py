import numpy as np
import pytest
from scipy import integrate
from scipy.stats import norm

from featlearn.spectral import method as spectral


@pytest.mark.parametrize("link", ["he2", "square"])
def test_weak_recovery_threshold_of_phase_retrieval_is_one_half(link):
    assert abs(spectral.weak_recovery_threshold(link) - 0.5) < 1e-12


def test_weak_recovery_threshold_of_abs_against_independent_integration():
    # y = |g| determines g² = y²: δ_u = 1/∫ (g² − 1)² φ(g) dg, integrated by adaptive quadrature.
    value, _ = integrate.quad(lambda g: (g * g - 1) ** 2 * norm.pdf(g), -np.inf, np.inf)
    assert abs(spectral.weak_recovery_threshold("abs") - 1 / value) < 1e-10


def test_noisy_threshold_against_independent_double_integration():
    """δ_u for y = g² − 1 + 0.3ε by Simpson's rule on uniform grids (independent of Gauss–Hermite):
    p(y) = ∫ φ(g) φ_s(y − g² + 1) dg, E[g²|y] = ∫ g² φ(g) φ_s(·) dg / p(y), then ∫ (E[g²|y] − 1)² p(y) dy."""
    s = 0.3
    g = np.linspace(-9, 9, 4001)
    y = np.linspace(-1 - 9 * s, 50, 3001)
    joint = norm.pdf(g)[None, :] * norm.pdf((y[:, None] - g[None, :] ** 2 + 1) / s) / s
    p_y = integrate.simpson(joint, x=g, axis=1)
    m_y = integrate.simpson(joint * g**2, x=g, axis=1) / np.maximum(p_y, 1e-300)
    second = integrate.simpson((m_y - 1) ** 2 * p_y, x=y)
    assert abs(integrate.simpson(p_y, x=y) - 1) < 1e-6
    assert abs(spectral.weak_recovery_threshold("he2", noise=s) - 1 / second) < 1e-4


@pytest.mark.parametrize("delta", [0.51, 0.8, 2.0, 10.0])
@pytest.mark.parametrize("link", ["he2", "square", "abs", "bump"])
def test_optimal_preprocessing_sign_and_no_pole_above_threshold(link, delta):
    law = spectral.SingleIndexLaw(link)
    g = np.linspace(-5, 5, 4001)  # |g| ≤ 5: the bump link's 1 − y = √2e^{−g²/2} keeps 10 digits
    y = law.link.h(g[:, None])
    t = spectral.optimal_preprocessing(law, delta)(y)
    m = law.g2_given_y(y)
    np.testing.assert_allclose(m, g**2, rtol=1e-9, atol=1e-9)
    assert np.all(np.isfinite(t))
    assert np.all(np.sign(t) == np.sign(m - 1))  # T* > 0 exactly where y says |g| > 1
    assert np.all(t < 1)  # bounded above: (M − 1)/(M − 1 + √(δ/δ_u)) < 1


def test_preprocessing_refuses_the_pole_below_threshold():
    with pytest.raises(ValueError, match="pole"):
        spectral.optimal_preprocessing(spectral.SingleIndexLaw("he2"), 0.4)


def test_lanczos_top_eigenvector_matches_dense_eigh(rng):
    x = rng.standard_normal((500, 200))
    t = rng.standard_normal(500)
    lam, v = spectral.top_eigenvector(x, t, tol=1e-12)
    vals, vecs = np.linalg.eigh((x * t[:, None]).T @ x / 500)
    assert abs(lam - vals[-1]) < 1e-10
    assert abs(abs(v @ vecs[:, -1]) - 1) < 1e-10


def test_asymptotic_overlap_is_zero_below_and_increasing_above_threshold():
    values = [spectral.asymptotic_overlap("he2", dl) for dl in (0.3, 0.5, 0.55, 0.75, 1.5, 3.0, 8.0)]
    assert values[0] == values[1] == 0
    assert all(b > a for a, b in zip(values[1:], values[2:], strict=False))
    assert values[-1] < 1


def test_spectral_estimator_overlap_matches_asymptotic_curve():
    """d = 400, 20 draws per δ: the median overlap within tolerance of the Lu–Li curve.

    Tolerances: 0.03 at δ = 2, 4 (draw-to-draw s.d. ≈ 0.03 and 0.014, so the median's is < 0.01,
    plus O(1/√d) finite-size bias); 0.1 at δ = 1, near δ_u where the s.d. is ≈ 0.14.
    """
    d = 400
    law = spectral.SingleIndexLaw("he2")
    for delta, tol in ((1.0, 0.1), (2.0, 0.03), (4.0, 0.03)):
        rng = np.random.default_rng(int(delta * 10))
        overlaps = []
        for _ in range(20):
            x = rng.standard_normal((int(delta * d), d))
            y = x[:, 0] ** 2 - 1
            overlaps.append(abs(spectral.spectral_estimator(x, y, law, delta)[0]))
        theory = spectral.asymptotic_overlap("he2", delta)
        assert abs(np.median(overlaps) - theory) < tol, (delta, np.median(overlaps), theory)
