"""The escape's anatomy (cells.anatomy): its spectra against dense eigh of the explicit Hessian, its
localisation measure on planted vectors, its bulk edge against the compressed matrix, and its trials
against the sweep's."""

import math
from dataclasses import asdict

import numpy as np
import pytest
from conftest import GELU_SWEEP
from scipy import stats

from featlearn.analysis import anatomy_tables
from featlearn.cells import anatomy
from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import hard_directions
from featlearn.model import hessian_spectrum
from featlearn.pipeline.jobs import KIND

SETTINGS = KIND["escape_anatomy_cell"].settings(
    **{
        k: v for k, v in asdict(GELU_SWEEP).items() if k in KIND["escape_anatomy_cell"].settings.field_names()
    },
    dense_steps=6,
    anatomy_points=8,
    window=4,
    k=3,
    grad_tol=1e-5,
)
"""The tiny config's GeLU sweep trials, followed by the anatomy."""


def test_planned_steps_are_dense_early_then_log_spaced_to_the_budget():
    steps = anatomy.planned_steps(budget=4000, dense=10, points=12)
    assert set(range(11)) <= set(steps) and steps[-1] == 4000 and np.all(np.diff(steps) > 0)
    assert 11 < steps.size <= 11 + 12


def test_localisation_tells_a_one_sample_spike_from_a_delocalised_direction(rng):
    n, d = 2000, 200
    x = rng.standard_normal((n, d))
    w = rng.uniform(0.5, 1.5, n)
    w[17] = -50.0 * n / d  # one sample with a huge negative weight: its own eigenvector
    lam, vecs = np.linalg.eigh((x * w[:, None]).T @ x / n)
    pr, share = anatomy.localisation(x, w, vecs[:, 0])
    assert lam[0] < 0 and share > 0.95 and pr < 0.1  # (d + n)²/(n(d² + 3n)) ≈ 0.05 here, 1/3 delocalised
    spread = rng.standard_normal(d)
    pr, share = anatomy.localisation(
        x, np.where(rng.random(n) < 0.5, -1.0, 1.0), spread / np.linalg.norm(spread)
    )
    assert abs(pr - 1 / 3) < 0.05 and share < 0.02


def test_bulk_edge_is_the_bottom_of_the_compressed_matrix(rng):
    d = 60
    for degenerate in (False, True):
        a = rng.standard_normal((d, d))
        h = (a + a.T) / 2
        star = rng.standard_normal(d)
        if degenerate:  # θ* orthogonal to the bottom eigenvector: it stays an eigenvector of the compression
            v0 = np.linalg.eigh(h)[1][:, 0]
            star -= (star @ v0) * v0
        star /= np.linalg.norm(star)
        lam, vecs = np.linalg.eigh(h)
        exact = hessian_spectrum.complement_eigenvalues(h, star[:, None])[0]
        assert anatomy.bulk_edge(lam, vecs.T @ star) == pytest.approx(exact, abs=1e-10)


def test_state_anatomy_matches_dense_eigh_of_the_explicit_hessian(rng):
    n, d = 400, 50
    x = rng.standard_normal((n, d))
    y = x[:, 0] ** 2 - 1
    theta = rng.standard_normal((1, d)) / np.sqrt(d)
    a, b, star = np.ones(1), np.zeros(1), np.eye(d)[:, 0]
    state = anatomy.state_anatomy(x, y, theta, a, b, "gelu", star, k=3)
    hmat = hessian_spectrum.hessian_matrix(x, y, theta, a, b, "gelu")
    ref = hessian_spectrum.spectrum_of(hmat, star[:, None], k=3)
    np.testing.assert_allclose(state["eigenvalues"], ref.eigenvalues, atol=1e-10)
    np.testing.assert_allclose(state["overlap2"], ref.hard_overlap2, atol=1e-8)
    assert state["bulk_edge"] == pytest.approx(ref.bulk_edge, abs=1e-9)
    assert state["h11"] == pytest.approx(star @ hmat @ star, abs=1e-10)
    lam, vecs = np.linalg.eigh(hmat)
    below = vecs[:, lam < 0]
    assert state["neg_weight"] == pytest.approx(np.sum((below.T @ star) ** 2), abs=1e-10)
    assert state["n_neg"] == np.count_nonzero(lam < 0)
    assert state["u"] == pytest.approx(np.sqrt(d) * theta[0, 0])


@pytest.mark.parametrize("trial", [0, 1, 2])
def test_a_trial_is_the_sweeps_own_and_its_restricted_twin_never_leaves_the_complement(trial):
    d, delta = 60, 6.0
    sweep = trials.run_trial(GELU_SWEEP, d, delta, trial)
    out = anatomy.trial_anatomy(SETTINGS, d, delta, trial)
    assert (out["escape_step"], out["final_step"]) == (sweep.escape_step, sweep.final_step)
    assert out["final_rho"] == sweep.final_rho
    assert out["steps"][-1] == sweep.final_step
    end = sweep.escape_step if sweep.escape_step >= 0 else sweep.final_step
    assert set(range(max(end - SETTINGS.window, 0), end + 1)) <= set(out["steps"])
    assert set(range(min(SETTINGS.dense_steps, sweep.final_step) + 1)) <= set(out["steps"])
    reached = np.isfinite(out["restricted_u"])
    np.testing.assert_allclose(out["restricted_u"][reached], 0.0, atol=1e-12)
    np.testing.assert_allclose(out["full_rho"][-1], sweep.final_rho, rtol=1e-6)
    assert np.all(out["full_overlap2"] <= 1 + 1e-12)


def test_the_reseeded_runs_start_without_u0_and_afresh_on_the_trials_own_data():
    d, delta = 60, 6.0
    data, net = trials.trial_setup(SETTINGS, d, delta, 0)
    star = hard_directions(data["theta_star"], SETTINGS.link)
    zero = anatomy.without_hard_component(net, star)
    assert abs(zero.theta0[0] @ star[:, 0]) < 1e-15
    np.testing.assert_allclose(net.theta0 - zero.theta0, (net.theta0 @ star[:, 0])[:, None] * star[:, 0])
    fresh = trials.fresh_start(SETTINGS, d, delta, 0, data, "reinit")
    assert np.array_equal(fresh.theta0, trials.fresh_start(SETTINGS, d, delta, 0, data, "reinit").theta0)
    assert not np.allclose(fresh.theta0, net.theta0)
    assert not np.allclose(fresh.theta0, trials.fresh_start(SETTINGS, d, delta, 1, data, "reinit").theta0)
    out = anatomy.reseeded_runs(SETTINGS, d, delta, 0, data, net, star)
    for name, start in (("zero_u", zero), ("reinit", fresh)):
        every = trials.schedule(SETTINGS, data, start, grid=np.arange(SETTINGS.steps + 1))
        assert out[f"{name}_final_rho"] == gd.run(data, start, every).final_rho


def test_first_hermite_score_is_standard_normal_over_data_sets_of_an_even_link(rng):
    """z₁ (E16d) over 4000 data sets of y = g² − 1 (n = 300): mean 0 and variance 1 (Monte Carlo,
    5σ bounds); a link with an odd part gives |z₁| of order √n."""
    g = rng.standard_normal((4000, 300))
    z = np.array([anatomy.first_hermite_score(row**2 - 1, row) for row in g])
    assert abs(z.mean()) < 5 / np.sqrt(4000) and abs(z.var() - 1) < 5 * np.sqrt(2 / 4000)
    assert anatomy.first_hermite_score(g[0] ** 2 - 1 + g[0], g[0]) > 0.3 * np.sqrt(300)


def test_chance_agreement_is_that_of_outcomes_independent_of_the_data():
    assert anatomy_tables.chance_agreement([1, 1, 0, 0], [1, 0, 1, 0]) == 0.5
    assert anatomy_tables.chance_agreement([1, 1], [1, 1]) == 1.0
    assert anatomy_tables.chance_agreement([1, 0, 0], [0, 0, 0]) == pytest.approx((1 / 6) ** 2 + (5 / 6) ** 2)


def _seed_summaries(cell):
    zero_u, agrees, chance = anatomy_tables.seed_flags(cell)
    return [
        {"success": s, "zero_u_success": z, "reinit_agrees": a, "chance_agreement": chance, "data_z1": z1}
        for s, z, a, z1 in zip(cell["success"], zero_u, agrees, cell["data_z1"], strict=True)
    ]


def test_reseeded_outcomes_name_readings_v_and_vi():
    """Ten trials, five successes: where the runs without u⁰ keep every success and the fresh starts
    agree with every trial, (v) and (vi) are supported; where the runs without u⁰ lose every success
    and the fresh starts agree as often as chance would, (v) is excluded and (vi) undetermined."""
    success = np.arange(10) < 5
    cell = {
        "success": success,
        "success_rho": 0.5,
        "zero_u_final_rho": np.where(success, 0.9, 0.1),
        "reinit_final_rho": np.where(success, 0.9, 0.1),
        "data_z1": np.where(success, 1.0, -1.0),
    }
    row = anatomy_tables.seed_columns(_seed_summaries(cell))
    assert (row["zero_u_kept"], row["zero_u_kept_of"]) == (5, 5)
    assert (row["reinit_agree"], row["reinit_agree_of"]) == (10, 10)
    assert row["chance_agree"] == 0.5 and row["z1_separation"] == 0.5  # equal |z₁|: a tie
    assert row["zero_u_kept_low"] > 0.5 and row["reinit_agree_low"] > 0.5
    cell["zero_u_final_rho"] = np.full(10, 0.1)
    cell["reinit_final_rho"] = np.where(np.arange(10) % 2 == 0, 0.9, 0.1)
    row = anatomy_tables.seed_columns(_seed_summaries(cell))
    assert row["zero_u_kept"] == 0 and row["zero_u_kept_high"] < 0.5
    assert (row["reinit_agree"], row["reinit_agree_of"]) == (6, 10)
    assert row["reinit_agree_low"] < row["chance_agree"] < row["reinit_agree_high"]
    cell["zero_u_final_rho"] = cell["reinit_final_rho"] = np.full(10, 0.9)
    cell["success"] = np.ones(10, bool)  # every run succeeds: nothing says what seeded it
    row = anatomy_tables.seed_columns(_seed_summaries(cell))
    assert row["zero_u_kept_of"] == row["reinit_agree_of"] == 0 and math.isnan(row["chance_agree"])


def test_the_cell_pads_trials_of_unequal_length():
    cell = anatomy.anatomy_cell(SETTINGS, 60, 6.0, log=lambda _: None)
    assert cell["steps"].shape == cell["full_rho"].shape == cell["restricted_h11"].shape
    assert cell["full_eigenvalues"].shape == (*cell["steps"].shape, SETTINGS.k)
    for i in range(SETTINGS.trials):
        valid = cell["steps"][i] >= 0
        assert np.all(np.isfinite(cell["full_rho"][i, valid])) and np.all(
            np.isnan(cell["full_rho"][i, ~valid])
        )


def test_binomial_interval_is_the_likelihood_ratio_set():
    cut = stats.chi2.ppf(0.95, 1) / 2
    assert anatomy_tables.binomial_interval(0, 10) == pytest.approx((0.0, 1 - np.exp(-cut / 10)))
    low, high = anatomy_tables.binomial_interval(7, 20)
    for p in (low, high):
        drop = stats.binom.logpmf(7, 20, 0.35) - stats.binom.logpmf(7, 20, p)
        assert drop == pytest.approx(cut, abs=1e-8)
    assert low < 0.35 < high


def test_growth_exponent_and_the_aligned_window():
    steps = np.array([0, 1, 2, 4, 8])
    assert anatomy_tables.growth_exponent(steps, [-0.5, -0.5, 0.0, -1.0, 0.0], lr=1.0) == pytest.approx(
        2 * np.log(1.5) + 4 * np.log(2.0)
    )
    aligned = np.array([True, True, False, True, False])
    assert anatomy_tables.aligned_window_end(aligned, np.ones(5, bool)) == 2
    assert anatomy_tables.aligned_window_end(np.ones(5, bool), np.arange(5) < 3) == 3  # escaped inside it
    assert anatomy_tables.separation([0.5, 0.6], [0.1, 0.5]) == pytest.approx(0.875)


def test_the_anatomy_table_reads_a_planted_cell():
    """A hand-made cell of two trials: one escapes at step 3 while its aligned eigenvalue lasts, one
    loses it at step 2 and stalls: the row counts them and names reading (i)."""
    steps = np.array([[0, 1, 2, 3, -1], [0, 1, 2, 3, 4]])
    lam = np.full((2, 5, 2), 0.1)
    ov = np.full((2, 5, 2), 0.0)
    lam[0, :3, 0], ov[0, :3, 0] = -0.5, 0.4  # aligned until escape
    lam[1, :2, 0], ov[1, :2, 0] = -0.5, 0.4  # aligned at steps 0, 1
    cell = {
        "d": 100,
        "delta": 5.0,
        "lr": 1.0,
        "steps": steps,
        "escape_step": np.array([3, -1]),
        "success": np.array([True, False]),
        "plateau_step": np.array([200, 150]),
        "full_eigenvalues": lam,
        "full_overlap2": ov,
        "restricted_eigenvalues": lam,
        "restricted_overlap2": ov,
        "full_h11": np.full((2, 5), 0.2),
        "full_u": np.array([[1.0, 2.0, 4.0, 8.0, np.nan], [1.0, 1.5, 1.8, 1.8, 1.8]]),
        "full_rho": np.array([[0.1, 0.2, 0.4, 0.6, np.nan], [0.1, 0.15, 0.18, 0.18, 0.18]]),
        "full_top_share": np.full((2, 5, 2), 0.2),
        "full_neg_weight": np.full((2, 5), 0.3),
        "full_n_neg": np.ones((2, 5)),
        "success_rho": 0.5,
        "zero_u_final_rho": np.array([0.1, 0.1]),  # without u⁰ the success is lost
        "reinit_final_rho": np.array([0.1, 0.9]),  # a fresh start reverses both outcomes
        "data_z1": np.array([-2.0, 0.5]),
    }
    row = anatomy_tables.cell_row("gelu", cell)
    assert (row["successes"], row["aligned_success"], row["aligned_failure"], row["failures"]) == (1, 1, 1, 1)
    assert row["escaped_in_window"] == 1 and row["from_plateau"] == 0
    assert row["rho_window_success"] == 0.6 and row["rho_window_failure"] == 0.18  # t_w = 3 and 2
    assert row["undriven_share_median"] == 0.0 and row["localised_fraction"] == 0.0
    assert row["mechanism"] == "none identified"  # one success: its interval reaches below ½
    many = {k: np.repeat(v, [6, 1], axis=0) if np.ndim(v) else v for k, v in cell.items()}
    assert (
        anatomy_tables.cell_row("gelu", many)["mechanism"] == "(i) aligned negative curvature before escape"
    )
    many["full_top_share"][:] = 0.9
    assert "(iii) localised spikes" in anatomy_tables.cell_row("gelu", many)["mechanism"]


def test_pooled_verdict_supports_excludes_or_leaves_undetermined():
    """Pooled trials: a reading whose share's interval lies above its level (½, or the chance
    agreement for (vi)) is supported, below it excluded; with few trials it is neither."""

    def trial(success, share, plateau=100, escape=10, localised=(False,)):
        return {
            "success": success,
            "escape_step": escape if success else -1,
            "plateau_step": plateau,
            "aligned_before": True,
            "undriven_share": share,
            "localised": list(localised),
            "rho_window": 0.5 if success else 0.05,
            "zero_u_success": success,
            "reinit_agrees": True,
            "chance_agreement": 0.68,
            "data_z1": 2.0 if success else -0.5,
        }

    many = [trial(True, 0.0) for _ in range(20)] + [trial(False, np.nan) for _ in range(5)]
    row = anatomy_tables.pooled_row("gelu", 500, many)
    assert row["driven"] == 20 and row["driven_low"] > 0.5 and row["from_plateau_high"] < 0.5
    assert row["mechanism"] == (
        "(i) aligned negative curvature drives the growth + (v) not seeded by the initial hard coordinate"
        " + (vi) the data set matters; excluded: (ii), (iii), (iv)"
    )
    for x in many[:9]:  # fresh starts agree in 16 of 25: the interval holds the chance level 0.68
        x["reinit_agrees"] = False
    assert "(vi)" not in anatomy_tables.pooled_row("gelu", 500, many)["mechanism"]
    assert row["z1_separation"] == 1.0  # |z₁| = 2 for every success, 0.5 for every failure
    assert row["rho_window_separation"] == 1.0
    few = anatomy_tables.pooled_row("gelu", 1000, [trial(True, 0.9, plateau=5), trial(True, 0.0)])
    assert few["mechanism"] == "none supported"
    rows = anatomy_tables.pooled_rows("gelu", {1000: [trial(True, 0.0)], 500: many})
    assert [r["d"] for r in rows] == [500, 1000, "all"] and rows[-1]["trials"] == 26
    assert [r["d"] for r in anatomy_tables.pooled_rows("gelu", {500: many})] == [500]


def test_the_anatomy_figure_keys_the_trial_colours_it_draws():
    """The caption names no colour: the first panel's legend keys successes and failures, in the
    colours their trials are drawn in."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.colors import to_rgba

    from featlearn.plotting.anatomy_figures import anatomy_figure

    steps = np.tile(np.arange(5), (2, 1))
    cell = {
        "d": 100, "delta": 6.0, "steps": steps, "success": np.array([True, False]),
        "full_rho": np.linspace(0, 1, 10).reshape(2, 5),
        "full_eigenvalues": -np.ones((2, 5, 2)), "full_overlap2": np.full((2, 5, 2), 0.5),
    }  # fmt: skip
    row = {"sweep": "s", "d": 100, "delta": 6.0, "successes": 1, "failures": 1}
    for key in ("aligned_success", "aligned_failure"):
        row |= {key: 1, f"{key}_low": 0.2, f"{key}_high": 1.0}
    fig = anatomy_figure({"s": [cell]}, [row])
    ax = fig.axes[0]
    key = {h.get_label(): to_rgba(h.get_color()) for h in ax.get_legend().legend_handles}
    drawn = [to_rgba(line.get_color()) for line in ax.get_lines() if len(line.get_xdata())]
    assert set(key) == {"successes", "failures"}
    assert drawn == [key["successes"], key["failures"]]  # trial 0 succeeded, trial 1 failed
