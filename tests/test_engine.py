import math
from dataclasses import replace

import numpy as np
import pytest
from conftest import SETTINGS

from featlearn.gd import engine as gd
from featlearn.gd import trials as sweep
from featlearn.model import hessian_spectrum as hessian
from featlearn.model import network
from featlearn.model.loss import named_loss


def test_log_grid_is_sorted_unique_and_spans_the_run():
    grid = gd.log_grid(4000, 60)
    assert grid[0] == 0 and grid[-1] == 4000
    assert np.all(np.diff(grid) > 0)
    assert grid.size <= 62


def test_engine_matches_plain_numpy_gd(rng):
    """A few steps of the engine against Θ ← Θ − η∇R̂ with the NumPy reference gradient."""
    settings = replace(SETTINGS, m=3, a=(1.0, 0.5, -0.7), b=(0.1, 0.0, -0.2), steps=5)
    data, net = sweep.trial_setup(settings, 40, 3.0, 0)
    traj = gd.run(data, net, gd.Schedule(lr=0.7, steps=5, grid=gd.log_grid(5, 10)))
    theta, a, b = net.theta0.copy(), net.a, net.b
    for _ in range(5):
        theta -= 0.7 * network.gradient(data["X"], data["y"], theta, a, b, "gelu")
    np.testing.assert_allclose(traj.theta, theta, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(
        traj.train_loss[-1], network.risk(data["X"], data["y"], theta, a, b, "gelu"), rtol=1e-11
    )


@pytest.mark.parametrize("train", [("theta", "a", "b"), ("theta", "b")])
def test_engine_trains_the_second_layer_as_plain_numpy_gd(train):
    """(M4a): a and b take the step η ∂R̂/∂a, η ∂R̂/∂b beside Θ (the NumPy reference (Ga), (Gb));
    a layer left out of ``train`` stays fixed."""
    settings = replace(SETTINGS, m=3, a=(1.0, 0.5, -0.7), b=(0.1, 0.0, -0.2), steps=5)
    data, net = sweep.trial_setup(settings, 40, 3.0, 0)
    traj = gd.run(data, net, gd.Schedule(lr=0.7, steps=5, grid=gd.log_grid(5, 10), train=train))
    theta, a, b = net.theta0.copy(), np.array(net.a), np.array(net.b)
    for _ in range(5):
        grad = network.gradient(data["X"], data["y"], theta, a, b, "gelu")
        grad_a, grad_b = network.gradient_second_layer(data["X"], data["y"], theta, a, b, "gelu")
        theta -= 0.7 * grad
        a -= 0.7 * grad_a * ("a" in train)
        b -= 0.7 * grad_b * ("b" in train)
    np.testing.assert_allclose(traj.theta, theta, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(traj.final_a, a, rtol=1e-11, atol=1e-13)
    np.testing.assert_allclose(traj.final_b, b, rtol=1e-11, atol=1e-13)
    assert np.array_equal(traj.final_a, net.a) == ("a" not in train)


def test_schedule_rejects_a_train_without_theta():
    with pytest.raises(ValueError, match="theta"):
        gd.Schedule(lr=1.0, steps=1, grid=gd.log_grid(1, 2), train=("a",))


def test_a_trained_bias_trial_stops_at_a_certified_minimum_in_every_trained_parameter():
    """``train = (theta, b)``: the certificate runs on the Hessian in (Θ, b) (M7a) and stops the trial;
    the run continued without it to ‖∇‖ ≤ 1e-8 ends within ρ_tol of the stopped ρ, at a point whose
    Hessian in (Θ, b) is positive definite, and the exact test loss is taken at the trained b."""
    settings = replace(
        SETTINGS, steps=20_000, certify_check_grad=1e-2, certify_grad_floor=1e-4, train=("theta", "b")
    )
    data, net = sweep.trial_setup(settings, 40, 3.0, 1)
    schedule = sweep.schedule(settings, data, net)
    traj = gd.run(data, net, schedule)
    assert traj.stop_reason == "certified_minimum" and abs(traj.final_b[0] - net.b[0]) > 1.0
    exact = sweep.population_risk_of(settings, data, net)(traj.theta, traj.final_a, traj.final_b)
    np.testing.assert_allclose(traj.final_test_loss, exact, rtol=1e-12)
    full = gd.run(data, net, replace(schedule, certificate=None, grad_tol=1e-8, steps=100_000))
    assert full.converged and abs(full.final_rho - traj.final_rho) <= settings.certify_rho_tol
    lam = hessian.bottom_eigenpair(
        data["X"], data["y"], full.theta, full.final_a, full.final_b, "gelu", train=("theta", "b")
    )[0]
    assert lam > 0


def test_a_sweep_cell_with_a_trained_second_layer_records_its_layers():
    cell = sweep.run_cell(
        replace(SETTINGS, steps=300, train=("theta", "a", "b")), 40, 3.0, log=lambda _: None
    )
    assert cell["final_a"].shape == (2, 1) and cell["final_b"].shape == (2, 1)
    assert np.all(cell["final_a"] != 1.0) and np.all(cell["final_b"] != 0.0)


def test_a_huber_cell_trains_on_huber_loss_and_stops_by_the_floor_rule_only():
    """(M3a): a Huber trial trains on ρ (its train loss is the Huber risk of its final Θ by the NumPy
    reference) and stops at its minimum by the floor rule (M14), the Kantorovich bound being off."""
    settings = replace(SETTINGS, steps=2000, huber=0.5, certify_check_grad=1e-2, certify_grad_floor=1e-4)
    data, net = sweep.trial_setup(settings, 40, 3.0, 0)
    schedule = sweep.schedule(settings, data, net)
    assert (
        schedule.loss == named_loss("huber", 0.5)
        and schedule.test_risk is None
        and math.isinf(schedule.certificate.safety)
    )
    traj = gd.run(data, net, schedule)
    expected = network.risk(data["X"], data["y"], traj.theta, net.a, net.b, "gelu", named_loss("huber", 0.5))
    np.testing.assert_allclose(traj.final_train_loss, expected, rtol=1e-10)
    assert traj.stop_reason == "certified_minimum" and schedule.certificate.certified_by == "floor"


def test_same_cell_twice_gives_identical_arrays():
    one = sweep.run_cell(SETTINGS, 40, 6.0, log=lambda _: None)
    two = sweep.run_cell(SETTINGS, 40, 6.0, log=lambda _: None)
    assert one.keys() == two.keys()
    for key in one:
        np.testing.assert_array_equal(one[key], two[key])


def test_trials_and_cells_draw_different_data():
    a, _ = sweep.trial_setup(SETTINGS, 30, 2.0, 0)
    b, _ = sweep.trial_setup(SETTINGS, 30, 2.0, 1)
    c, _ = sweep.trial_setup(SETTINGS, 30, 3.0, 0)
    assert not np.array_equal(a["X"], b["X"])
    assert not np.array_equal(a["X"][:10], c["X"][:10])
    again, _ = sweep.trial_setup(SETTINGS, 30, 2.0, 0)
    np.testing.assert_array_equal(a["X"], again["X"])


def test_divergence_is_recorded_not_raised():
    traj = sweep.run_trial(replace(SETTINGS, activation="quad", lr=50.0), 30, 3.0, 0)
    assert traj.diverged
    assert traj.final_step < SETTINGS.steps
    assert not traj.frozen


def test_freeze_and_escape_step_are_consistent():
    settings = replace(SETTINGS, steps=300)
    traj = sweep.run_trial(settings, 50, 14.0, 0)
    assert traj.frozen  # δ = 14 is far above the GeLU threshold: the trial escapes and freezes
    assert traj.final_rho >= settings.freeze_rho
    assert 0 < traj.escape_step <= traj.final_step
    reached = np.isfinite(traj.rho)
    assert np.all(traj.steps[reached] <= traj.final_step)
    # the recorded ρ at the escape step's grid neighbours brackets the escape threshold
    before = traj.steps[reached] < traj.escape_step
    assert before.any() and np.all(traj.rho[reached][before] < settings.escape_rho)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_dtype_option(dtype):
    data, _ = sweep.trial_setup(replace(SETTINGS, dtype=dtype), 20, 2.0, 0)
    assert data["X"].dtype == np.dtype(dtype)
    assert data["y"].dtype == np.float64


def test_learning_steps_are_first_grid_steps_reaching_the_level():
    from featlearn.analysis.sweeps import learning_step_rows

    steps = np.array([0, 1, 3, 10, 30])
    overlap = np.array([[[0.1, 0.0], [0.6, 0.1], [0.9, 0.2], [0.95, 0.7], [0.97, np.nan]]])
    cell = {"direction_overlap": overlap, "neuron_overlap": overlap / 2, "steps": steps, "d": 5, "delta": 2.0}
    rows = learning_step_rows(cell, 0.5)
    assert rows[0]["easy_learned_step"] == 1 and rows[0]["hard_learned_step"] == 10
    assert rows[0]["hard_final_overlap"] == 0.7 and rows[0]["hard_final_neuron_overlap"] == 0.35


def test_multi_neuron_multi_index_engine_runs_and_records_both_directions():
    settings = replace(SETTINGS, link="easy_hard", m=2, lr=2.0, freeze_rho=1.0, steps=30)
    traj = sweep.run_trial(settings, 40, 4.0, 0)
    assert traj.direction_overlap.shape == (traj.steps.size, 2)
    assert np.all((traj.direction_overlap >= 0) & (traj.direction_overlap <= 1))


@pytest.mark.parametrize(("delta", "trial"), [(2.0, 1), (3.0, 0)])
def test_certified_stop_ends_where_the_full_budget_ends(delta, trial):
    """A failed trial stopped by the certificate (M13) has the full-budget run's outcome, stops
    earlier, its ρ is within ρ_tol of the full run's, the full run ends within the certified radius
    κ·2‖g‖/λ, and the Hessian there is positive definite (dense eigh, independently of Lanczos)."""
    early = replace(SETTINGS, steps=3000)
    stopped = sweep.run_trial(early, 40, delta, trial)
    full = sweep.run_trial(replace(early, certify_check_grad=None), 40, delta, trial)
    assert stopped.stop_reason == "certified_minimum" and full.stop_reason == "budget"
    assert stopped.final_step < full.final_step
    assert abs(stopped.final_rho - full.final_rho) <= early.certify_rho_tol
    assert stopped.final_rho < early.success_rho
    data, net = sweep.trial_setup(early, 40, delta, trial)
    hessian = network.hessian_dense(data["X"], data["y"], stopped.theta, net.a, net.b, "gelu")
    lam = np.linalg.eigvalsh(hessian)[0]
    grad = np.linalg.norm(network.gradient(data["X"], data["y"], stopped.theta, net.a, net.b, "gelu"))
    assert lam > 0.0
    assert np.linalg.norm(full.theta - stopped.theta) <= early.certify_safety * 2 * grad / lam


def test_blocks_of_a_cell_concatenate_to_the_whole_cell_bit_for_bit():
    """Trials keep their own seeds in any block: blocks [0, 2) and [2, 3) joined by
    ``io.results.concatenate_blocks`` equal the cell's three trials run at once, array by array."""
    from featlearn.io.results import CELL_SHARED, concatenate_blocks

    whole = replace(SETTINGS, steps=40, first_trial=0, trials=3)
    cell = sweep.run_cell(whole, 20, 4.0, log=lambda _: None)
    blocks = [
        (
            sweep.run_cell(replace(whole, first_trial=first, trials=n), 20, 4.0, log=lambda _: None),
            {"params": {}},
        )
        for first, n in ((0, 2), (2, 1))
    ]
    joined, record = concatenate_blocks(blocks)
    assert set(joined) == set(cell) and set(CELL_SHARED) < set(cell)
    for key in cell:
        np.testing.assert_array_equal(joined[key], cell[key], err_msg=key)
    assert record["params"]["trials"] == 3 and record["params"]["first_trial"] == 0


def test_the_cycle_test_tells_a_period_two_cycle_from_a_monotone_approach():
    """(M15) on gradients: alternating (g, −g(1 − ε)) is a cycle for ε below the tolerance only; a
    monotone approach (g, qg) and round-off-sized gradients are not."""
    g = np.array([0.3, -0.4])
    assert gd.two_cycle(-g * (1 - 1e-4), g) and not gd.two_cycle(-g * (1 - 1e-2), g)
    assert not gd.two_cycle(0.99 * g, g) and not gd.two_cycle(-g, 1e-10 * g)
    assert not gd.two_cycle(-g, np.zeros(2))


def test_gd_training_a_at_a_large_step_ends_in_a_labelled_cycle():
    """GeLU on y = z² − 1 training a (d = 40, δ = 5, η = 1): GD settles into a period-2 cycle (the
    train loss alternates between two values, the gradient stays O(1)) and the run is labelled
    ``cycle``; at η = 0.25 the same trial converges (its last gradient at round-off) and ends as
    ``budget``, and so does the fixed layer at η = 1 (docs/model.md, eq. (M15))."""
    data, net = sweep.trial_setup(replace(SETTINGS, train=("theta", "a")), 40, 5.0, 0)

    def end(lr, train):
        schedule = gd.Schedule(lr=lr, steps=3000, grid=np.arange(2996, 3001), train=train)
        return gd.run(data, net, schedule)

    cycle = end(1.0, ("theta", "a"))
    loss = cycle.train_loss
    assert cycle.stop_reason == "cycle" and cycle.grad_norm[-1] > 0.01
    assert loss[-1] == pytest.approx(loss[-3], rel=1e-9) and abs(loss[-1] - loss[-2]) > 1e-5
    assert end(0.25, ("theta", "a")).stop_reason == "budget"
    assert end(1.0, ("theta",)).stop_reason == "budget"
