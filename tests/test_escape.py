"""The hard-coordinate process (theory.escape) against simulation, and its finite-d referee."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from featlearn.pipeline import settings
from featlearn.theory import dmft, escape, linearisation

ROOT = Path(__file__).resolve().parents[1]
REFEREE = settings.referee_settings(yaml.safe_load((ROOT / "config.yaml").read_text()), "gelu_bump")


def test_propagator_solves_the_linear_recursion():
    """u^{t+1} = u^t − η Σ_s R_g(t,s) u^s without noise, iterated directly, is R_u(t, 0) u⁰."""
    rng = np.random.default_rng(1)
    r_g = np.tril(rng.standard_normal((7, 7))) * 0.3
    u = [1.0]
    for t in range(6):
        u.append(u[t] - 0.8 * sum(r_g[t, s] * u[s] for s in range(t + 1)))
    np.testing.assert_allclose(escape.propagator(r_g, 0.8)[:, 0], u, rtol=1e-12)


def test_covariance_is_that_of_the_sampled_process():
    """Monte Carlo of (U) with ξ ~ GP(0, C_g) against (V)."""
    res = dmft.solve("gelu", "bump", 9.0, 1.0, 6, 4000, ("escape-test", 1))
    rng = np.random.default_rng(2)
    draws = 200_000
    xi = rng.multivariate_normal(np.zeros(7), res.c_g, size=draws, method="cholesky").T
    u = [rng.standard_normal(draws)]
    for t in range(6):
        memory = sum(res.r_g[t, s] * u[s] for s in range(t + 1))
        u.append(u[t] - res.lr / np.sqrt(res.delta) * xi[t] - res.lr * memory)
    empirical = np.cov(np.array(u))
    np.testing.assert_allclose(escape.covariance(res, 1.0), empirical, rtol=0.02, atol=0.01)


@pytest.fixture(scope="module")
def bump_cell():
    """Unrestricted GD and its linearisation, GeLU, bounded link, δ = 9, d = 200, 24 trials."""
    return linearisation.hard_coordinate_cell(REFEREE, 200, 9.0, 24, 10, log=lambda *_: None)


def test_linearisation_tracks_the_unrestricted_hard_coordinate(bump_cell):
    """Trial by trial, the exact linearisation (one HVP per step) follows θ₁ on the bounded link."""
    lin, full = bump_cell["linear"], bump_cell["unrestricted"]
    assert bump_cell["unrestricted_norm"].shape == full.shape
    np.testing.assert_array_equal(lin[:, 0], full[:, 0])
    assert np.median(np.abs(lin[:, 1:] - full[:, 1:]) / np.abs(full[:, 1:])) < 0.02


def test_the_process_propagates_the_initial_hard_coordinate(bump_cell):
    """E[u^t | u⁰] = R_u(t, 0) u⁰: the regression slope of the simulated u^t on u⁰ over trials
    matches the propagator of the DMFT kernels (N = 2·10⁴ paths)."""
    res = dmft.solve("gelu", "bump", 9.0, 1.0, 10, 20_000, ("escape-test", 2))
    r_u0 = escape.propagator(res.r_g, res.lr)[:, 0]
    full = bump_cell["unrestricted"]
    slopes = full.T @ full[:, 0] / (full[:, 0] @ full[:, 0])
    np.testing.assert_allclose(slopes[1:], r_u0[1:], rtol=0.15)


def test_dmft_with_signal_follows_a_planted_overlap():
    """Unrestricted GD from θ(0) with θ₁(0) = m₀ (bounded link, δ = 9) against the DMFT with the
    teacher overlap as an order parameter (escape.md): m^t within 0.03 of the seed mean."""
    from dataclasses import replace

    m0 = 0.3
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    planted = replace(
        settings.escape_settings(config, "gelu_bump"),
        experiment=REFEREE.experiment,
        d=400,
        steps=20,
        trials=4,
    )
    res = dmft.solve("gelu", "bump", 9.0, 1.0, planted.steps, 10_000, ("escape-test", 3), m0=m0)
    assert res.m[0] == m0 and np.all(res.rho <= 1)
    simulated = [escape.planted_run(planted, 9.0, seed, m0)[0] for seed in range(planted.trials)]
    assert all(run[0] == pytest.approx(m0) for run in simulated)
    np.testing.assert_allclose(res.m, np.mean(simulated, axis=0), atol=0.03)


def test_without_signal_the_dmft_is_the_restricted_one():
    plain = dmft.solve("gelu", "bump", 9.0, 1.0, 5, 2000, ("escape-test", 4))
    zero = dmft.solve("gelu", "bump", 9.0, 1.0, 5, 2000, ("escape-test", 4), m0=0.0)
    np.testing.assert_array_equal(plain.norm2, zero.norm2)
    assert np.all(plain.m == 0)
