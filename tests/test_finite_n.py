"""The prediction from the finite system's early window (theory.finite_n, analysis.finite_n_tables;
docs/escape.md (E19)-(E23)): the window's end and growth exponent on planted tracks, the growth
probability against Monte Carlo, a path set's arrays and determinism, the predicted δ₅₀'s bootstrap
interval against a planted crossing, and the verdict's closed form; a path set's finite-Hessian
readings (E24) read its own scan."""

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
)
"""The tiny config's GeLU model on y = z² − 1, over a short horizon."""


def test_a_path_set_has_the_systems_own_samples_and_reads_its_own_outlier_track():
    d, delta = 100, 6.0
    one = finite_n.path_set(SETTINGS, d, delta, 0)
    identity = (SETTINGS.seed, "finite-n", "test", "gelu", "he2", delta, d, 0)
    res = dmft.solve_for(SETTINGS, delta, SETTINGS.horizon, 600, identity)  # N = n = δd = 600
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
