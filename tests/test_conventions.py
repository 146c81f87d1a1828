"""The convention explorer: each convention key changes what it claims to, the auto-refined scan,
the aligned-neuron plateau by quadrature, and the scoring."""

from pathlib import Path

import numpy as np
import pytest
import yaml

from featlearn.analysis import conventions as score
from featlearn.cells import conventions as scan
from featlearn.gd import trials
from featlearn.model.activations import evaluate
from featlearn.model.links import get_link
from featlearn.model.population import population_risk
from featlearn.pipeline import jobs
from featlearn.pipeline import settings as typed

ROOT = Path(__file__).resolve().parents[1]


def _config(**grid):
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["conventions"] = {"trials": 2, "grid": grid}
    return config


def _trajectory(s, d=60, delta=6.0):
    return trials.run_trial(s, d, delta, 0)


@pytest.mark.slow
def test_a_loss_scale_is_exactly_a_learning_rate_scale():
    """Training on s·R̂ with s = 1/E y² (second_moment) follows the trajectory of R̂ with η·s."""
    config = _config(
        scaled={"link": "square", "loss_normalisation": "second_moment"}, plain={"link": "square"}
    )
    # (certified stopping reads the *scaled* gradient, so it is off here)
    scaled = jobs.settings_of("convention_scan", config, convention="scaled", activation="gelu")
    scaled = type(scaled)(**{**scaled.asdict(), "certify_check_grad": None, "steps": 400})
    data, _ = trials.trial_setup(scaled, 60, 6.0, 0)
    s = 1.0 / np.mean(data["y"] ** 2)
    assert trials.loss_scale(scaled, data["y"]) == pytest.approx(s)
    plain = jobs.settings_of("convention_scan", config, convention="plain", activation="gelu")
    plain = type(plain)(**{**plain.asdict(), "certify_check_grad": None, "steps": 400, "lr": plain.lr * s})
    a, b = _trajectory(scaled), _trajectory(plain)
    assert np.allclose(a.rho, b.rho, rtol=1e-9, atol=1e-12)
    assert np.allclose(a.norm, b.norm, rtol=1e-9)
    assert np.allclose(a.train_loss, s * np.asarray(b.train_loss), rtol=1e-9)  # the reported loss is s·R̂


def test_each_convention_key_reaches_the_trial():
    config = _config(
        base={},
        square={"link": "square"},
        wide={"a": 2.0, "b": -1.0, "r0": 0.1, "lr_factor": 2.0, "steps_factor": 4.0},
    )
    base, square, wide = (
        jobs.settings_of("convention_scan", config, convention=n, activation="gelu")
        for n in ("base", "square", "wide")
    )
    (data0, net0), (data1, _), (_, net2) = (trials.trial_setup(s, 80, 5.0, 0) for s in (base, square, wide))
    assert np.array_equal(data0["X"], data1["X"])  # paired: the same data under every convention
    assert np.allclose(data1["y"] - data0["y"], 1.0)  # y = z² against y = z² − 1
    assert np.all(net2.a == 2.0) and np.all(net2.b == -1.0)
    assert np.allclose(net2.theta0, 0.1 * net0.theta0)  # same draw, init scale r₀
    assert wide.lr == 2 * base.lr and wide.steps == 4 * base.steps
    assert typed.convention_keys(config, "wide")["report"] == "half_mse"
    assert (
        typed.convention_keys(_config(x={"loss_normalisation": "second_moment"}), "x")["report"] == "relative"
    )


def test_success_rules_count_final_and_ever_escaped_trials():
    cell = {
        "success": np.array([True, False, False]),
        "escape_step": np.array([5, 40, -1]),
        "diverged": np.array([False, False, False]),
    }
    assert scan.successes(cell, "final") == 1
    assert scan.successes(cell, "max") == 2


def test_the_refined_grid_centres_on_the_coarse_crossing():
    new, centre, status = scan.refined_grid([2.0, 4.0, 8.0], [0.0, 0.25, 0.75], [0.9, 1.0, 1.1])
    assert status == "ok" and centre == pytest.approx(6.0)
    assert new == [5.4, 6.0, 6.6]
    _, centre, status = scan.refined_grid([2.0, 4.0, 8.0], [0.0, 0.0, 0.25], [1.0])
    assert (centre, status) == (8.0, "none")  # never crossed: refine at the top of the grid
    new, centre, status = scan.refined_grid([2.0, 4.0], [1.0, 1.0], [0.5, 1.0])
    assert (centre, status, new) == (2.0, "below_grid", [1.0])


@pytest.mark.parametrize("link", ["square", "he2"])
def test_aligned_plateau_by_quadrature_matches_monte_carlo(link):
    """min_c ½E(y − σ(c g))² by quadrature vs 10⁶ samples at the optimal c, in every report."""
    c, risk = score.aligned_risk("gelu", link, 1.0, 0.0)
    g = np.random.default_rng(5).standard_normal(1_000_000)
    y = get_link(link).h(g[:, None])
    f = evaluate("gelu", c * g)[0]
    sq = 0.5 * (y - f) ** 2
    assert abs(sq.mean() - risk) < 4 * sq.std() / np.sqrt(g.size)
    second, var = score.label_moments(link)
    assert second == pytest.approx(np.mean(y**2), rel=0.01) and var == pytest.approx(np.var(y), rel=0.01)
    # no other scale does better (a grid check of the minimisation)
    grid = [
        population_risk(np.array([[x]]), 1.0, 0.0, "gelu", np.array([[1.0]]), link)
        for x in np.linspace(-3, 3, 61)
    ]
    assert risk <= min(grid) + 1e-9
    # the numbers, independently: 0.577 (y = z², relative) and 0.789 (y = z² − 1)
    expected = {"square": ("relative", 0.577), "he2": ("half_mse", 0.789)}[link]
    assert score.reported(risk, expected[0], link) == pytest.approx(expected[1], abs=1e-3)


def test_scoring_ranks_by_distance_and_needs_resolved_agreement():
    paper, tol = {"gelu": 6.0, "quad": 3.6, "plateau": 0.6}, {"gelu": 0.3, "quad": 0.2, "plateau": 0.05}
    keys = {"near": {"link": "square"}, "far": {"link": "he2"}, "noisy": {"link": "square"}}
    fits = {
        ("near", "gelu"): (500, 6.1, 0.1, "ok"),
        ("near", "quad"): (500, 3.7, 0.1, "ok"),
        ("far", "gelu"): (500, 9.0, 0.1, "ok"),
        ("far", "quad"): (500, 5.0, 0.1, "ok"),
        ("noisy", "gelu"): (500, 7.0, 2.0, "ok"),  # within 2σ, but σ > tolerance
        ("noisy", "quad"): (500, 3.6, 0.05, "ok"),
    }
    plateaus = {"near": {"quadrature": 0.58}, "far": {"quadrature": 0.79}, "noisy": {"quadrature": 0.6}}
    rows = score.score_rows(keys, fits, plateaus, paper, tol)
    assert [r["convention"] for r in rows][0] == "near" and rows[0]["rank"] == 1
    by = {r["convention"]: r for r in rows}
    assert by["near"]["fits_all_three"] and not by["far"]["fits_all_three"]
    assert not by["noisy"]["gelu_agrees"] and not by["noisy"]["fits_all_three"]
    assert by["far"]["distance"] > by["near"]["distance"]
    # a failed fit does not buy a better rank
    fits[("near", "gelu")] = (500, float("nan"), float("nan"), "all successes")
    rows = score.score_rows(keys, fits, plateaus, paper, tol)
    assert rows[-1]["convention"] == "near" and rows[-1]["measured_numbers"] == 2
