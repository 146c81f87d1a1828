"""The prediction from the finite system's early window (theory.finite_n, analysis.finite_n_tables;
docs/escape.md (E19)-(E23)): the window's end and growth exponent on planted tracks, the growth
probability against Monte Carlo, a path set's arrays and determinism, the predicted δ₅₀'s bootstrap
interval against a planted crossing, and the verdict's closed form; a path set's finite-Hessian
readings (E24) read its own scan; the success level (E25) against a full scan of the kicked DMFT; the
trial's own DMFT (E27) against its quantiles solved one by one, and i.i.d. path sets' forcing against
the finite-sample variance it must have."""

import dataclasses
import math

import numpy as np
import pytest
from conftest import GELU, ROOT

from featlearn.analysis import criteria, finite_n_tables
from featlearn.model import seeds
from featlearn.pipeline.jobs import KIND
from featlearn.theory import dmft, escape, finite_hessian, finite_n
from featlearn.theory.delta_nn import outlier_track
from featlearn.theory.two_stage import success_probability

NAN = np.nan


def _window(outlier, overlap2, aligned):
    """(t_w, open) of (E19) on an outlier track."""
    return finite_n.first_run_end(finite_hessian.aligned_steps(outlier, overlap2, aligned))


def test_window_ends_at_the_first_close_of_the_aligned_negative_outlier():
    outlier = np.array([-1.0, -0.8, NAN, -0.5, -0.4, NAN, NAN])
    overlap2 = np.array([0.3, 0.05, NAN, 0.2, 0.02, NAN, NAN])
    assert _window(outlier, overlap2, 0.1) == (1, False)  # closes at step 1; step 3 reopens it
    assert _window(outlier, overlap2, 0.5) == (0, False)  # none aligned enough
    assert _window(np.array([-1.0, -1.0]), np.array([0.5, 0.5]), 0.1) == (1, True)  # still open
    late = np.array([0.2, -1.0, -1.0, 0.3, -2.0])  # opens at step 1, closes at 3, a late outlier at 4
    assert _window(late, np.full(5, 0.5), 0.1) == (3, False)
    assert finite_n.first_run_end([False, False, True]) == (2, True)


def test_growth_exponent_sums_the_aligned_steps_before_the_window_end():
    outlier = np.array([-1.0, -0.5, -2.0, -3.0])
    hits = finite_hessian.aligned_steps(outlier, np.array([0.5, 0.05, 0.5, 0.5]), 0.1)
    expected = math.log(1 + 0.5 * 1.0) + math.log(1 + 0.5 * 2.0)  # step 1 not aligned, step 3 after t_w
    assert finite_n.growth_exponent(outlier, hits, 0.5, 3) == pytest.approx(expected)


def test_growth_probability_is_that_of_the_amplified_initial_coordinate(rng):
    gamma, norm2, d, rho_c, r0 = 1.7, 0.8, 400, 0.3, 1.2
    u = r0 * np.abs(rng.standard_normal(400_000)) * math.exp(gamma)
    monte_carlo = np.mean(u >= math.sqrt(d) * rho_c * math.sqrt(norm2))
    exact = finite_n.growth_probability(gamma, norm2, d, rho_c, r0)
    assert exact == pytest.approx(monte_carlo, abs=4 * math.sqrt(exact * (1 - exact) / u.size))


FINITE_N = KIND["escape_finite_n_cell"].settings
SETTINGS = FINITE_N(
    **{k: v for k, v in GELU.items() if k in FINITE_N.field_names()},
    experiment="test",
    horizon=8,
    path_sets=3,
    samples=2000,
    rho_c=(0.3, 0.45),
    aligned=0.1,
    k=3,
    hessian_d=(100,),
    level_d=(),
    level_horizon=12,
    level_m0=(0.02, 0.05, 0.12, 0.3, 0.7),
    init_d=(),
    init_quantiles=4,
    sampling="iid",
    success_rho=0.5,
)
"""The tiny config's GeLU model on y = z² − 1, over a short horizon."""


def test_a_path_set_has_the_systems_own_samples_and_reads_its_own_outlier_track():
    d, delta = 100, 6.0
    one = finite_n.path_set(SETTINGS, d, delta, 0)
    identity = (SETTINGS.seed, "finite-n", "test", "gelu", "he2", delta, d, 0)
    res = dmft.solve_for(SETTINGS, delta, SETTINGS.horizon, 600, identity, sampling="iid")  # N = n = δd
    track = outlier_track(res, np.arange(SETTINGS.horizon + 1))
    np.testing.assert_array_equal(one["outlier"], track["outlier"])
    np.testing.assert_array_equal(one["h11"], res.h11)
    t_w, _ = _window(track["outlier"], track["overlap2"], 0.1)
    assert one["window_end"] == t_w
    np.testing.assert_array_equal(one["u0_share"], escape.initial_share(res, SETTINGS.r0))
    assert one["u0_share"][0] == pytest.approx(1.0) and np.all((one["u0_share"] > 0) & (one["u0_share"] <= 1))
    assert (
        np.all((one["p_linear"] >= 0) & (one["p_linear"] <= 1)) and one["p_linear"][0] >= one["p_linear"][1]
    )
    rows = finite_hessian.surrogate_rows(
        res.g2, d, np.random.default_rng(seeds.identity_entropy(*identity, "rows"))
    )
    hits, lam = finite_hessian.aligned_scan(rows, res.w, 0.1, 3)
    assert (one["hessian_window_end"], one["hessian_window_open"]) == finite_n.first_run_end(hits)
    np.testing.assert_array_equal(one["hessian_lambda"], lam)
    t_f = one["hessian_window_end"]
    gamma = finite_n.growth_exponent(lam, hits, SETTINGS.lr, t_f)
    assert one["hessian_growth_exponent"] == gamma
    growth = [finite_n.growth_probability(gamma, res.norm2[t_f], d, rc, SETTINGS.r0) for rc in SETTINGS.rho_c]
    np.testing.assert_array_equal(one["p_hessian_growth"], growth)
    for key in ("p_hessian_linear", "p_hessian_growth"):
        assert one[key].shape == (2,) and np.all((one[key] >= 0) & (one[key] <= 1))
    again = finite_n.path_set(SETTINGS, d, delta, 0)
    np.testing.assert_array_equal(again["p_curvature"], one["p_curvature"])
    np.testing.assert_array_equal(again["p_hessian_growth"], one["p_hessian_growth"])
    other = finite_n.path_set(SETTINGS, d, delta, 1)
    assert not np.array_equal(other["outlier"], one["outlier"], equal_nan=True)


def test_a_cell_stacks_its_path_sets():
    cell = finite_n.finite_n_cell(SETTINGS, 100, 6.0, log=lambda *a: None)
    assert cell["p_linear"].shape == (3, 2) and cell["outlier"].shape == (3, SETTINGS.horizon + 1)
    assert cell["n"] == 600


def test_the_initial_share_is_read_at_each_path_sets_window_end():
    share = np.array([[1.0, 0.8, 0.6, 0.4], [1.0, 0.9, 0.7, 0.5], [1.0, 0.7, 0.5, 0.3]])
    cell = {"u0_share": share, "window_end": np.array([2, 0, 3])}  # the second has no window
    np.testing.assert_array_equal(finite_n_tables.initial_share_at_window(cell), [0.6, np.nan, 0.3])


def test_predicted_delta50_covers_a_planted_crossing(rng):
    deltas = np.arange(4.0, 10.5, 0.5)
    truth, covered = 7.2, 0
    for _ in range(40):
        p_sets = [
            np.clip(1 / (1 + np.exp(-(dl - truth))) + 0.15 * rng.standard_normal(8), 0, 1) for dl in deltas
        ]
        pred = finite_n_tables.predicted_delta50(deltas, p_sets, rng, bootstrap=200)
        covered += pred["low"] <= truth <= pred["high"]
    assert covered >= 34  # ~95 % of 40, with room for the interpolation's bias


def test_an_unreached_half_leaves_the_interval_open_upwards(rng):
    deltas = [4.0, 5.0, 6.0]
    pred = finite_n_tables.predicted_delta50(
        deltas, [np.full(4, 0.1), np.full(4, 0.2), np.full(4, 0.3)], rng, 50
    )
    assert math.isnan(pred["value"]) and pred["status"] == "none" and pred["high"] == math.inf


def test_verdict_uses_two_combined_standard_errors():
    sigma_p = 1.0 / (2 * criteria.Z95)  # interval [6.5, 7.5]
    bound = 2 * math.hypot(sigma_p, 0.2)
    assert finite_n_tables.verdict(7.0, 6.5, 7.5, 7.0 + 0.99 * bound, 0.2) == (
        True,
        pytest.approx(-0.99 * bound),
    )
    assert finite_n_tables.verdict(7.0, 6.5, 7.5, 7.0 - 1.01 * bound, 0.2)[0] is False
    assert finite_n_tables.verdict(7.0, 6.5, math.inf, 7.0, 0.2) == (
        False,
        pytest.approx(math.nan, nan_ok=True),
    )


def test_compare_rows_pair_each_prediction_with_the_measurement_at_its_d():
    predicted = [
        {"d": d, "delta50_predicted": 7.0, "delta50_predicted_low": 6.8, "delta50_predicted_high": 7.2}
        for d in (250, 500)
    ]
    points = [{"d": 250, "delta50": 6.0, "delta50_err": 0.2, "delta50_low": 5.6, "delta50_high": 6.4}]
    at_250, at_500 = finite_n_tables.compare_rows(predicted, points)
    assert (
        at_250["gap"] == pytest.approx(1.0)
        and at_250["agrees"] is False
        and at_250["delta50_measured_low"] == 5.6
    )
    assert math.isnan(at_500["delta50_measured"]) and math.isnan(at_500["gap"]) and at_500["agrees"] is False


def test_the_phase_figure_draws_exactly_the_lines_its_sentence_names():
    """Figs 4 and 5: the legend below the panels and the manuscript's sentence come from one list
    (analysis.threshold_lines); a line without a value is neither drawn nor named."""
    import matplotlib

    matplotlib.use("Agg")
    from featlearn.analysis.manuscript_numbers import phase_line_words
    from featlearn.analysis.threshold_lines import threshold_lines
    from featlearn.plotting import figures

    theory = {"model": "quad", "n_paths": 10000, "delta_nn_long_time": 6.5, "delta_nn_min": float("nan")}
    finite_n = [
        {"sweep": "quad", "reading": "linear", "rho_c": 0.3, "d": 250, "delta50_predicted": 4.6},
        {"sweep": "quad", "reading": "growth", "rho_c": 0.3, "d": 250, "delta50_predicted": 4.1},
    ]
    params = {"theory": "quad", "paper": 3.6, "rho_c": 0.3, "stem": "fig5_phase_quad"}
    lines = threshold_lines(theory, finite_n, params, "quad")
    cells = [
        {
            "d": 250,
            "delta": dl,
            "successes": k,
            "trials": 10,
            "diverged": 0,
            "rho_median": 0.5,
            "rho_q30": 0.4,
            "rho_q70": 0.6,
        }
        for dl, k in ((3.0, 1), (4.0, 5), (5.0, 9))
    ]
    fig = figures.phase_figure(cells, [], "quad", lines=lines)
    drawn = [t.get_text() for t in fig.legends[0].get_texts()]
    assert drawn == [label for _, label, *_ in lines]
    assert [k for k, *_ in lines] == ["rs_long_time", "finite_d", "paper"]  # min_t δ_NN(t) has no value
    words = phase_line_words(
        {"theory_thresholds.csv": [theory], "delta50_finite_n.csv": finite_n},
        {"quad": params},
        {"fig5_phase_quad": "x.pdf"},
    )["fig5_phase_quad"]
    assert words == "; ".join(w for *_, w in lines) and "finite-time" not in words and "long-time" in words


def test_the_paper_correspondence_judges_each_quantity_at_its_own_tolerance():
    from featlearn.analysis import claims

    theory = {
        "model": "gelu",
        "n_paths": 10000,
        "delta_nn_long_time": 9.13,
        "long_time_numerical_error": 1e-5,
        "delta_nn_min": 6.2,
        "delta_nn_min_se": 0.43,
        "delta_nn_min_N2500": float("nan"),
        "delta_nn_min_se_N2500": float("nan"),
    }
    fit = {"sweep": "gelu", "d": 250, "status": "ok", "threshold": 6.45, "threshold_err": 0.05}
    fit |= {"threshold_low": 6.35, "threshold_high": 6.55, "scale": 0.5}
    predicted = {"sweep": "gelu", "reading": "linear", "rho_c": 0.3, "d": 250, "delta50_predicted": 7.1}
    predicted |= {"delta50_predicted_low": 6.9, "delta50_predicted_high": 7.3}
    tables = {"theory_thresholds.csv": [theory], "thresholds.csv": [fit], "delta50_finite_n.csv": [predicted]}
    results = claims.Results(lambda name: tables.get(name, []), None)
    tol = {"theory_threshold": 0.5, "gelu_threshold": 0.3, "quad_threshold": 0.3}
    roles = {"gelu": "gelu", "theory_gelu": "gelu", "quad": "quad", "theory_quad": "quad"}
    rows = {
        r["quantity"]: r for r in claims.paper_correspondence(results, tol, roles, {"gelu": 6.0, "quad": 3.6})
    }
    assert set(rows) == {
        "long-time theory (RS fixed point)",
        "finite-time theory, min over t, N = 10000",
        "GD δ₅₀ at d = 250",
        "finite-d prediction (E20) at d = 250",
    }
    assert (
        rows["finite-time theory, min over t, N = 10000"]["agrees"]
        and not rows["long-time theory (RS fixed point)"]["agrees"]
    )
    # 6.45 is 0.45 from 6.0: inside the theory tolerance (0.5), outside the GD one (0.3) and its interval
    assert rows["GD δ₅₀ at d = 250"]["tolerance"] == 0.3 and not rows["GD δ₅₀ at d = 250"]["agrees"]
    assert not rows["finite-d prediction (E20) at d = 250"]["agrees"]
    assert (
        claims.correspondence_text(list(rows.values()), "gelu") == "finite-time theory, min over t, N = 10000"
    )


def test_the_early_window_figure_draws_what_its_caption_names():
    """The manuscript's caption of the early-window figure names GD's measured δ₅₀(d) in black, the
    readings, and an arrow for an interval open upwards: the figure draws the measurement in black,
    one series per reading, and an arrow exactly where a predicted interval is open upwards."""
    import re

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.colors import to_rgba
    from matplotlib.text import Annotation

    from featlearn.plotting.finite_n_figures import READING_STYLE, finite_n_figure

    caption = re.search(
        r'#fig\("extra_escape_finite_n", \[(.*?)\]\)\n', (ROOT / "paper" / "manuscript.typ").read_text()
    )[1]
    assert "(black)" in caption and "arrow marks an interval open upwards" in caption
    rows = []
    for d, open_upwards in ((250, False), (500, True)):
        for reading in READING_STYLE:
            high = math.inf if open_upwards and reading == "growth" else 8.0
            rows.append({
                "model": "gelu", "rho_c": 0.3, "d": d, "reading": reading,
                "delta50_predicted": 7.0, "delta50_predicted_low": 6.5, "delta50_predicted_high": high,
                "delta50_measured": 6.0, "delta50_measured_low": 5.5, "delta50_measured_high": 6.5,
            })  # fmt: skip
    fig = finite_n_figure(rows, 0.3)
    ax = fig.axes[0]
    measured = next(line for line in ax.get_lines() if line.get_label() == "GD, measured")
    assert to_rgba(measured.get_color()) == to_rgba("black")
    assert {line.get_label() for line in ax.get_lines()} >= {label for *_, label in READING_STYLE.values()}
    arrows = [a for a in ax.get_children() if isinstance(a, Annotation)]
    assert len(arrows) == 1 and to_rgba(arrows[0].arrow_patch.get_edgecolor()) == to_rgba(
        READING_STYLE["growth"][0]
    )


def test_the_finite_hessian_readings_are_left_out_where_not_computed(rng):
    """Outside ``hessian_d`` a path set has NaN finite-Hessian entries and the δ₅₀ table no rows for
    those readings; the other readings are unchanged."""
    elsewhere = dataclasses.replace(SETTINGS, hessian_d=())
    one = finite_n.path_set(elsewhere, 100, 6.0, 0)
    assert math.isnan(one["hessian_window_end"]) and np.all(np.isnan(one["p_hessian_growth"]))
    np.testing.assert_array_equal(one["p_linear"], finite_n.path_set(SETTINGS, 100, 6.0, 0)["p_linear"])
    cells = [finite_n.finite_n_cell(elsewhere, 100, dl, log=lambda *a: None) for dl in (5.0, 8.0)]
    readings = {r["reading"] for r in finite_n_tables.delta50_rows("gelu", "gelu", cells, 0)}
    assert readings == {"linear", "growth", "curvature"}


def test_cells_without_the_finite_hessian_readings_are_read_as_not_computed():
    """Cells made before the readings existed (no keys) or at a d where only some δ have them give no
    δ₅₀ row for those readings, and NaN window columns, instead of a KeyError or a crossing on a
    partial grid."""
    cells = [finite_n.finite_n_cell(SETTINGS, 100, dl, log=lambda *a: None) for dl in (5.0, 8.0)]
    old = [{k: v for k, v in c.items() if "hessian" not in k} for c in cells]
    assert {r["reading"] for r in finite_n_tables.delta50_rows("gelu", "gelu", old, 0)} == {
        "linear",
        "growth",
        "curvature",
    }
    assert math.isnan(finite_n_tables.cell_rows("gelu", "gelu", old)[0]["hessian_window_end_median"])
    partial = [cells[0], old[1]]
    readings = {r["reading"] for r in finite_n_tables.delta50_rows("gelu", "gelu", partial, 0)}
    assert "hessian_growth" not in readings
    complete = {r["reading"] for r in finite_n_tables.delta50_rows("gelu", "gelu", cells, 0)}
    assert {"hessian_linear", "hessian_growth"} <= complete


def test_a_finite_hessian_d_must_be_a_predicted_d():
    from featlearn.pipeline import checks
    from featlearn.plan import load_config

    config = load_config([ROOT / "config.yaml"])
    config["escape"]["finite_n"]["hessian_d"] = [250, 700]
    with pytest.raises(checks.ConfigError) as error:
        checks.references(config)
    assert error.value.key == "escape.finite_n.hessian_d.1" and "\n" not in str(error.value)


def test_bisection_finds_the_level_a_full_scan_reads():
    """On every monotone outcome over grids of 1-9 kicks, the bisection returns what
    ``two_stage.critical_overlap`` reads from the whole scan, in at most ceil(log2(size + 1)) calls."""
    from featlearn.theory.two_stage import critical_overlap

    for size in range(1, 10):
        grid = 0.01 * 2.0 ** np.arange(size)
        for first in range(size + 1):  # kicks from index ``first`` on succeed
            outcome = np.arange(size) >= first
            calls = []

            def succeeds(m0, outcome=outcome, grid=grid, calls=calls):
                calls.append(m0)
                return bool(outcome[np.flatnonzero(grid == m0)[0]])

            assert finite_n.bisect_level(succeeds, grid) == critical_overlap(grid, outcome)[0]
            assert len(calls) <= math.ceil(math.log2(size + 1))


def test_level_probabilities_against_monte_carlo(rng):
    m_star, gamma, variance, d, r0 = 0.2, 1.3, 9.0, 400, 1.1
    growth, linear = finite_n.level_probabilities(m_star, gamma, variance, d, r0)
    z = np.abs(rng.standard_normal(400_000))
    for exact, values in ((growth, r0 * z * math.exp(gamma)), (linear, math.sqrt(variance) * z)):
        monte_carlo = np.mean(values >= math.sqrt(d) * m_star)
        assert exact == pytest.approx(monte_carlo, abs=4 * math.sqrt(exact * (1 - exact) / z.size) + 1e-4)
    assert finite_n.level_probabilities(math.inf, gamma, variance, d, r0) == (0.0, 0.0)


def test_a_path_sets_success_level_is_the_kicked_dmft_scan_at_its_window_end():
    """With ``level_d`` the path set's m* is that of the whole grid scanned by the kicked DMFT on 2n twin
    paths at the finite Hessian's window end, its probabilities (E25) follow from it, and outside
    ``level_d`` they are NaN."""
    from featlearn.theory.two_stage import critical_overlap

    d, delta = 100, 8.0
    with_level = dataclasses.replace(SETTINGS, level_d=(d,))
    one = finite_n.path_set(with_level, d, delta, 0)
    identity = (SETTINGS.seed, "finite-n", "test", "gelu", "he2", delta, d, 0)
    t_w, grid = int(one["hessian_window_end"]), np.asarray(with_level.level_m0)
    final = [
        dmft.solve_for(
            with_level, delta, 12, 1600, (*identity, "level"), m0=m0, kick=t_w, twins=True, sampling="iid"
        ).rho[-1]
        for m0 in grid
    ]
    success = np.asarray(final) >= 0.5
    assert np.all(np.diff(success.astype(int)) >= 0), "the test needs a monotone scan"
    assert one["level"] == critical_overlap(grid, success)[0]
    variance = escape.covariance(
        dmft.solve_for(SETTINGS, delta, SETTINGS.horizon, 800, identity, sampling="iid"), SETTINGS.r0
    )[t_w, t_w]
    expected = finite_n.level_probabilities(one["level"], one["hessian_growth_exponent"], variance, d, 1.0)
    np.testing.assert_allclose(one["p_level_growth"], expected[0])
    np.testing.assert_allclose(one["p_level_linear"], expected[1])
    res = dmft.solve_for(SETTINGS, delta, SETTINGS.horizon, 800, identity, sampling="iid")
    forced = escape.covariance(res, 1.0, finite_n.window_propagator(one["hessian_lambda"], res.h11, 1.0))
    assert one["hessian_forced_variance"] == pytest.approx(forced[t_w, t_w])
    np.testing.assert_allclose(
        one["p_hessian_forced"],
        [success_probability(rc * math.sqrt(res.norm2[t_w]), forced[t_w, t_w], d) for rc in (0.3, 0.45)],
    )
    np.testing.assert_allclose(one["p_level_forced"], success_probability(one["level"], forced[t_w, t_w], d))
    plain = finite_n.path_set(SETTINGS, d, delta, 0)
    assert math.isnan(plain["level"]) and np.all(np.isnan(plain["p_level_linear"]))
    np.testing.assert_array_equal(plain["p_hessian_growth"], one["p_hessian_growth"])


def test_a_success_level_d_must_be_a_finite_hessian_d():
    from featlearn.pipeline import checks
    from featlearn.plan import load_config

    config = load_config([ROOT / "config.yaml"])
    config["escape"]["finite_n"]["level_d"]["gelu"] = [1000]  # a predicted d without the finite Hessian
    with pytest.raises(checks.ConfigError) as error:
        checks.references(config)
    assert error.value.key == "escape.finite_n.level_d.gelu.0" and "\n" not in str(error.value)


def test_the_success_levels_horizon_must_outlast_the_window():
    from featlearn.pipeline import checks
    from featlearn.plan import load_config

    config = load_config([ROOT / "config.yaml"])
    config["escape"]["finite_n"]["level_horizon"]["gelu"] = 30  # the window's horizon
    with pytest.raises(checks.ConfigError) as error:
        checks.horizons(config)
    assert error.value.key == "escape.finite_n.level_horizon.gelu" and "\n" not in str(error.value)


def test_the_window_propagator_is_the_product_of_its_step_factors():
    lam = np.array([-0.5, -0.3, np.nan, np.nan])  # aligned at steps 0 and 1, then H11
    h11 = np.array([0.1, 0.2, 0.4, -0.2])
    g = finite_n.window_propagator(lam, h11, 0.5)
    a = [1.25, 1.15, 0.8, 1.1]
    for t in range(4):
        for s_ in range(4):
            expected = math.prod(a[s_:t]) if s_ <= t else 0.0
            assert g[t, s_] == pytest.approx(expected)


def test_the_forced_variance_is_that_of_the_scalar_recursion(rng):
    """(E26): u^{t+1} = a_t u^t − (η/√δ) ξ^t, ξ ~ GP(0, K_g), u⁰ ~ N(0, r₀²), simulated, against
    ``escape.covariance`` with the window's propagator."""
    from types import SimpleNamespace

    steps, lr, delta, r0 = 6, 0.7, 4.0, 1.3
    root = rng.standard_normal((steps, steps))
    c_g, gr = root @ root.T / steps + np.eye(steps), 0.3 * rng.standard_normal(steps)
    res = SimpleNamespace(r_g=np.zeros((steps, steps)), lr=lr, delta=delta, c_g=c_g + np.outer(gr, gr), gr=gr)
    lam, h11 = np.array([-0.8, -0.6, -0.4, np.nan, np.nan, np.nan]), np.array([0.0, 0.0, 0.0, 0.3, 0.1, 0.2])
    variance = np.diag(escape.covariance(res, r0, finite_n.window_propagator(lam, h11, lr)))
    a = np.where(np.isfinite(lam), 1 - lr * lam, 1 - lr * h11)
    draws = 200_000
    xi = rng.standard_normal((draws, steps)) @ np.linalg.cholesky(c_g).T
    u = r0 * rng.standard_normal(draws)
    for t in range(steps - 1):
        u = a[t] * u - lr / math.sqrt(delta) * xi[:, t]
        assert np.var(u) == pytest.approx(variance[t + 1], rel=0.02)


def test_the_initial_quantiles_are_the_symmetric_midpoints_of_the_normal_law():
    u = finite_n.initial_quantiles(8)
    np.testing.assert_allclose(
        u, [-1.5341, -0.8871, -0.4888, -0.1573, 0.1573, 0.4888, 0.8871, 1.5341], atol=1e-4
    )
    np.testing.assert_allclose(u, -u[::-1])
    assert np.all(finite_n.initial_quantiles(2) != 0)


def test_a_path_sets_own_dmft_from_initialisation_is_the_share_of_its_quantiles_that_succeed():
    """(E27) with ``init_d``: the path set's P_I is the share of the quantiles u_q from which the DMFT
    with signal on the path set's own n i.i.d. paths (no twins) ends at ρ ≥ success_rho; NaN outside
    ``init_d``; and the path set's other readings do not change."""
    d, delta = 100, 7.0
    with_initial = dataclasses.replace(SETTINGS, init_d=(d,))
    one = finite_n.path_set(with_initial, d, delta, 1)
    identity = (SETTINGS.seed, "finite-n", "test", "gelu", "he2", delta, d, 1)
    final = [
        dmft.solve_for(
            SETTINGS, delta, 12, 700, identity, m0=SETTINGS.r0 * u / math.sqrt(d), sampling="iid"
        ).rho[-1]
        for u in finite_n.initial_quantiles(4)
    ]
    assert 0 < np.mean(np.asarray(final) >= 0.5) < 1, "the test needs quantiles on both sides"
    np.testing.assert_allclose(one["p_initial"], np.mean(np.asarray(final) >= 0.5))
    plain = finite_n.path_set(SETTINGS, d, delta, 1)
    assert np.all(np.isnan(plain["p_initial"]))
    np.testing.assert_array_equal(plain["p_linear"], one["p_linear"])


def test_iid_paths_force_the_overlap_as_a_finite_sample_does_and_stratified_ones_hide_it():
    """With i.i.d. paths the first step's forcing E_N[g r⁰] (m¹ = m⁰ − η E_N[g r⁰]) is a sum of N
    independent terms: over path sets its variance is E[g² (r⁰)²]/N (checked to 25 %, 400 path sets, whose
    s.e. is 7 %), as a data set of N samples forces GD's hard coordinate.  Stratified draws remove about half
    of it (measured 0.52 of it: asserted below 0.7)."""
    delta, paths = 6.0, 300
    forcing = {"iid": [], "stratified": []}
    second_moment = []
    for sampling in forcing:
        for index in range(400):
            res = dmft.solve_for(SETTINGS, delta, 0, paths, ("forcing", index), m0=0.01, sampling=sampling)
            forcing[sampling].append(res.gr[0])
            if sampling == "iid":
                second_moment.append(res.c_g[0, 0])  # E_N[g² (r⁰)²]
    expected = np.mean(second_moment) / paths
    assert np.var(forcing["iid"]) == pytest.approx(expected, rel=0.25)
    assert np.var(forcing["stratified"]) < 0.7 * expected


def test_the_trial_s_own_dmft_is_computed_at_predicted_d_with_an_even_count_of_quantiles():
    """One-line config errors: ``init_d`` outside ``escape.finite_n.d``; an odd ``init_quantiles``
    (the middle one would start at u = 0, restricted GD); an unknown ``sampling``."""
    import yaml

    from featlearn.pipeline import checks
    from featlearn.plan import load_config

    config = load_config([ROOT / "config.yaml"])
    config["escape"]["finite_n"]["init_d"]["gelu"] = [2000]  # not a predicted d
    with pytest.raises(checks.ConfigError) as error:
        checks.references(config)
    assert error.value.key == "escape.finite_n.init_d.gelu.0" and "\n" not in str(error.value)
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    for key, value, words in (("init_quantiles", 7, "multiple of 2"), ("sampling", "sobol", "iid")):
        config = load_config([ROOT / "config.yaml"])
        config["escape"]["finite_n"][key] = value
        error = checks.schema_error(config, schema)
        assert error.key == f"escape.finite_n.{key}" and words in str(error) and "\n" not in str(error)
    with pytest.raises(ValueError, match="sampling must be one of"):
        dmft.normal_draws(np.random.default_rng(0), 3, "sobol")
