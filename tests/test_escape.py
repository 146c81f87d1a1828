"""The hard-coordinate process (theory.escape) against simulation (cells.escape), and its finite-d
referee."""

from dataclasses import replace

import numpy as np
import pytest
from conftest import GELU, GELU_BUMP_ESCAPE

from featlearn.cells import escape as escape_runs
from featlearn.cells import linearisation
from featlearn.pipeline.jobs import KIND
from featlearn.theory import dmft, escape

_BUMP = {**GELU, "link": "bump", "n_test": 2000, "dtype": "float64"}
REFEREE = KIND["theory_sim_cell"].settings(
    **_BUMP, experiment="theory_gelu_bump", steps=50, d=1000, seeds=3, k=2, spectrum_steps=(1, 10, 50)
)
"""The referee of gelu_bump (config.yaml's theory.simulation over its horizon), written out."""
BUMP_SIGNAL = KIND["escape_signal_cell"].settings(
    **_BUMP, experiment="escape_gelu_bump", steps=30, d=500, trials=32, n_paths=10000
)
"""The DMFT-with-signal cell of gelu_bump (config.yaml's escape section), written out."""
GELU_SIGNAL = replace(BUMP_SIGNAL, experiment="escape_gelu", link="he2")


def test_propagator_solves_the_linear_recursion():
    """u^{t+1} = u^t − η Σ_s R_g(t,s) u^s without noise, iterated directly, is R_u(t, 0) u⁰."""
    rng = np.random.default_rng(1)
    r_g = np.tril(rng.standard_normal((7, 7))) * 0.3
    u = [1.0]
    for t in range(6):
        u.append(u[t] - 0.8 * sum(r_g[t, s] * u[s] for s in range(t + 1)))
    np.testing.assert_allclose(escape.propagator(r_g, 0.8)[:, 0], u, rtol=1e-12)


def test_covariance_is_that_of_the_sampled_process():
    """Monte Carlo of (U) with ξ ~ GP(0, C_g − E[g r]E[g r]) against (V)."""
    res = dmft.solve("gelu", "bump", 9.0, 1.0, 6, 4000, ("escape-test", 1))
    rng = np.random.default_rng(2)
    draws = 200_000
    xi = rng.multivariate_normal(np.zeros(7), escape.noise_kernel(res), size=draws, method="cholesky").T
    u = [rng.standard_normal(draws)]
    for t in range(6):
        memory = sum(res.r_g[t, s] * u[s] for s in range(t + 1))
        u.append(u[t] - res.lr / np.sqrt(res.delta) * xi[t] - res.lr * memory)
    empirical = np.cov(np.array(u))
    np.testing.assert_allclose(escape.covariance(res, 1.0), empirical, rtol=0.02, atol=0.01)
    seeded = np.array([np.cov(u_t, u[0])[0, 1] ** 2 / np.var(u[0]) for u_t in u])  # Var(E[u^t | u⁰])
    np.testing.assert_allclose(escape.initial_share(res, 1.0), seeded / np.diag(empirical), atol=0.01)


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
    teacher overlap as an order parameter (docs/escape.md, eq. (E8)): m^t within 0.03 of the seed mean."""
    m0 = 0.3
    planted = replace(
        BUMP_SIGNAL,
        experiment=REFEREE.experiment,
        d=400,
        steps=20,
        trials=4,
    )
    res = dmft.solve("gelu", "bump", 9.0, 1.0, planted.steps, 10_000, ("escape-test", 3), m0=m0)
    assert res.m[0] == m0 and np.all(res.rho <= 1)
    simulated = [escape_runs.planted_run(planted, 9.0, seed, m0)[0][0] for seed in range(planted.trials)]
    assert all(run[0] == pytest.approx(m0) for run in simulated)
    np.testing.assert_allclose(res.m, np.mean(simulated, axis=0), atol=0.03)


def test_without_signal_the_dmft_is_the_restricted_one():
    plain = dmft.solve("gelu", "bump", 9.0, 1.0, 5, 2000, ("escape-test", 4))
    zero = dmft.solve("gelu", "bump", 9.0, 1.0, 5, 2000, ("escape-test", 4), m0=0.0)
    np.testing.assert_array_equal(plain.norm2, zero.norm2)
    assert np.all(plain.m == 0)


def test_finite_d_overlap_is_the_folded_gaussian_mean():
    """(S): mean and s.d. of |m + ε/√d| / ‖θ‖ against Monte Carlo of ε ~ N(0, V(t)); at d → ∞ it
    is the DMFT's own ρ^t."""
    res = dmft.solve("gelu", "bump", 9.0, 1.0, 8, 4000, ("escape-test", 5), m0=0.05, twins=True)
    d = 300
    mean, sd = escape.finite_d_overlap(res, d)
    variance = np.diag(escape.covariance(res, 0.0))
    assert variance[0] == 0 and mean[0] == pytest.approx(res.rho[0])
    rng = np.random.default_rng(6)
    draws = np.abs(res.m + rng.standard_normal((400_000, 1)) * np.sqrt(variance / d)) / np.sqrt(res.norm2)
    np.testing.assert_allclose(mean, draws.mean(axis=0), rtol=5e-3)
    np.testing.assert_allclose(sd, draws.std(axis=0), rtol=5e-3, atol=1e-6)
    np.testing.assert_allclose(escape.finite_d_overlap(res, 1e12)[0], res.rho, rtol=1e-5)


@pytest.mark.slow
def test_fluctuation_about_the_signal_trajectory_matches_planted_runs():
    """(S) on the bounded link from m₀ = 0.2 (δ = 9, d = 400): Var(√d θ₁^t) over 48 planted
    unrestricted runs against V(t) of ε from the DMFT-with-signal kernels (measured ratios
    0.9–1.1 for t ≤ 20; 48 runs leave ~20 % sampling error), and the mean overlap within 0.03."""
    m0, delta = 0.2, 9.0
    planted = replace(BUMP_SIGNAL, experiment=REFEREE.experiment, d=400, steps=10, trials=48)
    res = dmft.solve_for(planted, delta, planted.steps, 8000, ("escape-test", 7), m0=m0, twins=True)
    runs = np.array([escape_runs.planted_run(planted, delta, seed, m0)[0] for seed in range(planted.trials)])
    simulated = np.var(np.sqrt(planted.d) * runs[:, 0, 1:], axis=0, ddof=1)
    np.testing.assert_allclose(np.diag(escape.covariance(res, 0.0))[1:], simulated, rtol=0.4)
    mean, _ = escape.finite_d_overlap(res, planted.d)
    np.testing.assert_allclose(mean, np.mean(np.abs(runs[:, 0]) / runs[:, 1], axis=0), atol=0.03)


def test_referee_tables_find_where_the_linearisation_departs():
    """A synthetic cell whose linearisation departs by 1.9 % per step (all trials) but by 30 % from
    t = 4 on in trial 1: the median horizon is the last t with error ≤ 10 % (t = 5), trial 1's own is 3."""
    from featlearn.analysis import escape_tables

    t = np.arange(11)
    full = np.tile(1.0 + t, (3, 1))
    lin = full * (1 + 0.019 * t)
    lin[1, 4:] = full[1, 4:] * 1.3
    cell = {"d": 100, "delta": 9.0, "steps": t, "linear": lin, "unrestricted": full}
    assert escape_tables.linear_horizon(cell) == 5
    rows = escape_tables.referee_trial_rows("m", cell, [0, 3, 5, 20])
    assert {r["t"] for r in rows} == {0, 3, 5}
    assert [r["trial_linear_horizon"] for r in rows if r["t"] == 0] == [5, 3, 5]
    row = next(r for r in rows if r["trial"] == 1 and r["t"] == 5)
    assert row["relative_error"] == pytest.approx(0.3) and row["u_linearised"] == pytest.approx(7.8)


def test_a_planted_run_reports_where_it_ends():
    """‖∇R̂‖ and λ_min at the end of a planted run against the gradient and the dense Hessian at
    the same point (the run repeated step by step)."""
    from featlearn.gd import engine as gd
    from featlearn.gd import trials
    from featlearn.hessian.plateau import hard_directions
    from featlearn.model import network

    planted = replace(GELU_SIGNAL, experiment=REFEREE.experiment, d=40, steps=60, trials=1)
    (series, (grad, lam)) = escape_runs.planted_run(planted, 6.0, 0, 0.2)
    data, net = trials.trial_setup(planted, planted.d, 6.0, 0)
    hard = hard_directions(data["theta_star"], planted.link)[:, 0]
    theta = net.theta0 - np.outer(net.theta0 @ hard, hard) + 0.2 * hard
    ends = []
    schedule = gd.Schedule(lr=planted.lr, steps=planted.steps, grid=np.array([planted.steps]))
    network_ = gd.Network(net.activation, theta, net.a, net.b)
    gd.run(data, network_, schedule, checkpoint=lambda t, th: ends.append(th.copy()))
    x, y = np.asarray(data["X"], float), data["y"]
    assert series[0, -1] == pytest.approx(ends[-1][0] @ hard)
    expected = np.linalg.norm(network.gradient(x, y, ends[-1], net.a, net.b, net.activation))
    assert grad == pytest.approx(expected, rel=1e-10)
    dense = network.hessian_dense(x, y, ends[-1], net.a, net.b, net.activation)
    assert lam == pytest.approx(np.linalg.eigvalsh(dense)[0], abs=1e-7)


def test_linear_stage_cell_averages_v_over_replicas_with_their_error():
    """The cell's V(t) is the mean of the replicas' (V), each from its own paths, and its standard
    error is their spread/√R (recomputed here from independent solves with the same identities)."""
    s = GELU_BUMP_ESCAPE
    cell = escape_runs.linear_stage_cell(s, 6.0, log=lambda *a: None)
    identity = (s.seed, "escape", s.experiment, s.activation, s.link, 6.0, int(s.n_paths))
    var = np.array(
        [
            np.diag(escape.covariance(dmft.solve_for(s, 6.0, s.dmft_steps, s.n_paths, (*identity, r)), s.r0))
            for r in range(3)
        ]
    )
    np.testing.assert_allclose(np.diag(cell["theory_cov"]), var.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(cell["theory_var_se"], var.std(axis=0, ddof=1) / np.sqrt(3), rtol=1e-9)
    assert np.all(cell["theory_var_se"][1:] > 0)
