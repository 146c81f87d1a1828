from dataclasses import replace

import numpy as np
import pytest
from conftest import SETTINGS, small_problem
from scipy.stats import ortho_group

from featlearn.gd import engine as gd
from featlearn.gd import trials as sweep
from featlearn.model import hessian_spectrum as hessian
from featlearn.model import network
from featlearn.pipeline.jobs import KIND

PlateauSettings = KIND["hessian_cell"].settings
ScanSettings = KIND["spectral_threshold_cell"].settings


@pytest.mark.parametrize("m", [1, 2])
def test_operator_matches_explicit_hessian(rng, m):
    x, y, theta, a, b = small_problem(rng, n=120, d=50, m=m)
    hmat = hessian.hessian_matrix(x, y, theta, a, b, "gelu")
    op = hessian.hessian_operator(x, y, theta, a, b, "gelu")
    v = rng.standard_normal(m * 50)
    np.testing.assert_allclose(op @ v, hmat @ v, rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("m", [1, 2])
def test_lanczos_spectrum_matches_dense(rng, m):
    x, y, theta, a, b = small_problem(rng, n=600, d=200 // m, m=m)
    hard = np.eye(theta.shape[1], 1)
    dense = hessian.spectrum(x, y, theta, a, b, "quad", hard, k=3, dense_max=10**6)
    lanczos = hessian.spectrum(x, y, theta, a, b, "quad", hard, k=3, dense_max=0, tol=1e-12)
    np.testing.assert_allclose(lanczos.eigenvalues, dense.eigenvalues, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(lanczos.hard_overlap2, dense.hard_overlap2, atol=1e-6)
    assert abs(lanczos.bulk_edge - dense.bulk_edge) < 1e-8
    assert abs(lanczos.h11 - dense.h11) < 1e-10


def test_dense_bulk_edge_is_smallest_eigenvalue_on_the_complement(rng):
    x, y, theta, a, b = small_problem(rng, n=300, d=40)
    hard = np.eye(40, 1)
    spec = hessian.spectrum(x, y, theta, a, b, "gelu", hard)
    bulk = hessian.bulk_eigenvalues(x, y, theta, a, b, "gelu", hard)
    assert abs(spec.bulk_edge - bulk[0]) < 1e-10
    hmat = hessian.hessian_matrix(x, y, theta, a, b, "gelu")
    assert abs(spec.h11 - hmat[0, 0]) < 1e-12  # m = 1, h = 1: H₁₁


@pytest.mark.parametrize("dense_max", [10**6, 0])
def test_planted_negative_spike_is_recovered(dense_max):
    """H = Q diag(λ) Qᵀ with a planted eigenpair (−1.5, v), v = cos α e₁ + sin α w: the module
    must return λ_min = −1.5, overlap² = cos²α, and the bulk edge of the complement of e₁."""
    d, alpha = 300, 0.6
    rng = np.random.default_rng(5)
    w = rng.standard_normal(d)
    w[0] = 0
    w /= np.linalg.norm(w)
    v = np.cos(alpha) * np.eye(d)[0] + np.sin(alpha) * w
    q = ortho_group.rvs(d, random_state=6)
    q[:, 0] = v
    q, _ = np.linalg.qr(q)  # orthonormal, first column ±v
    lam = np.concatenate([[-1.5], rng.uniform(0.5, 2.5, d - 1)])
    hmat = (q * lam) @ q.T
    basis = np.eye(d, 1)
    op = hmat if dense_max else hessian.LinearOperator(hmat.shape, matvec=lambda x: hmat @ x, dtype=float)
    spec = hessian.spectrum_of(op, basis, k=2, tol=1e-12)
    assert abs(spec.eigenvalues[0] + 1.5) < 1e-9
    assert abs(spec.hard_overlap2[0] - np.cos(alpha) ** 2) < 1e-8
    assert abs(spec.bulk_edge - hessian.complement_eigenvalues(hmat, basis)[0]) < 1e-8


def test_restricted_gd_keeps_hard_component_zero_and_decreases_risk():
    settings = replace(SETTINGS, steps=200, activation="quad", lr=0.05)
    data, net = sweep.trial_setup(settings, 60, 6.0, 0)
    u, a, b = data["theta_star"], net.a, net.b
    losses = []
    traj = gd.run(
        data,
        net,
        gd.Schedule(lr=0.05, steps=200, grid=gd.log_grid(200, 30), restrict=u),
        checkpoint=lambda t, th: losses.append(network.risk(data["X"], data["y"], th, a, b, "quad")),
    )
    assert np.all(traj.theta @ u == 0.0)
    assert np.all(np.diff(losses) <= 1e-12)  # small η: monotone descent
    assert np.nanmax(traj.rho) == 0.0


def test_grad_tol_stops_a_converged_run():
    settings = replace(SETTINGS, activation="quad", lr=0.05)
    data, net = sweep.trial_setup(settings, 30, 6.0, 0)
    a, b = net.a, net.b
    schedule = gd.Schedule(
        lr=0.05, steps=20000, grid=gd.log_grid(20000, 30), restrict=data["theta_star"], grad_tol=1e-6
    )
    traj = gd.run(data, net, schedule)
    assert traj.converged and traj.final_step < 20000
    assert np.linalg.norm(network.gradient(data["X"], data["y"], traj.theta, a, b, "quad")[:, 1:]) <= 1e-6


def test_plateau_cell_stacks_seeds_that_stop_at_different_steps():
    from featlearn.hessian import plateau

    base = {k: v for k, v in SETTINGS.asdict().items() if k in PlateauSettings.field_names()}
    settings = PlateauSettings(
        **base | {"activation": "quad", "lr": 0.05, "steps": 3000},
        d=30,
        seeds=2,
        grad_tol=1e-4,
        checkpoints=8,
        k=2,
    )
    cell = plateau.plateau_cell(settings, 6.0, log=lambda _: None)
    assert cell["checkpoint_eigenvalues"].shape == (2, cell["checkpoint_steps"].shape[1], 2)
    assert cell["eigenvalues"].shape == (2, 2) and cell["bulk"].shape == (2, 29)
    reached = np.isfinite(cell["checkpoint_bulk_edge"])
    assert np.all(
        cell["checkpoint_steps"][reached]
        <= np.repeat(cell["final_step"][:, None], reached.shape[1], 1)[reached]
    )


def test_threshold_scan_records_the_final_state_of_the_plateau_run_exactly():
    """The scan cell skips the spectra along the way and the bulk spectrum; GD's path and the final
    state's record are those of the full plateau cell, bit for bit."""
    from featlearn.hessian import plateau

    base = {k: v for k, v in SETTINGS.asdict().items() if k in ScanSettings.field_names()}
    scan = ScanSettings(
        **base | {"activation": "gelu", "lr": 0.05, "steps": 3000}, d=30, seeds=2, grad_tol=1e-4, k=2
    )
    full = plateau.plateau_cell(PlateauSettings(**scan.asdict(), checkpoints=8), 6.0, log=lambda _: None)
    cell = plateau.threshold_scan_cell(scan, 6.0, log=lambda _: None)
    assert not any(k.startswith("checkpoint_") or k == "bulk" for k in cell)
    for key in set(cell) - {"train_loss", "norm"}:
        np.testing.assert_array_equal(cell[key], full[key], err_msg=key)
    np.testing.assert_array_equal(cell["train_loss"][:, 0], full["train_loss"][:, 0])
