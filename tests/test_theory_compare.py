from types import SimpleNamespace

import numpy as np
import pytest
from conftest import GELU_BUMP_MODEL

from featlearn.analysis.theory_tables import (
    long_time_threshold,
    refinement_rows,
    rs_state,
    simulated_crossing,
)
from featlearn.theory.crossing import first_crossing, first_root
from featlearn.theory.delta_nn import FixedPointMargin, fixed_point_model
from featlearn.theory.design import fixed_point_threshold


def test_first_crossing_interpolates_the_first_sign_change():
    deltas = [2.0, 4.0, 6.0, 8.0]
    assert first_crossing(deltas, [3.0, 1.0, -1.0, 2.0]) == (5.0, "ok")
    assert first_crossing(deltas[::-1], [2.0, -1.0, 1.0, 3.0]) == (5.0, "ok")  # any order
    assert first_crossing(deltas, [-1.0, -2.0, -3.0, -4.0]) == (2.0, "below_grid")
    value, status = first_crossing(deltas, [1.0, 2.0, 3.0, 4.0])
    assert np.isnan(value) and status == "none"


def test_first_root_refines_the_first_sign_change_and_names_what_it_cannot():
    def margin(delta):
        return (delta - 5.3) * (delta - 9.0)  # zeros at 5.3 (the first, along δ) and 9

    deltas = [4.0, 6.0, 8.0, 10.0]
    values = [margin(d) for d in deltas]
    root, status = first_root(margin, deltas[::-1], values[::-1], xtol=1e-10)  # any order
    assert status == "ok" and root == pytest.approx(5.3, abs=1e-9)
    assert first_root(margin, [6.0, 8.0], [margin(6.0), margin(8.0)]) == (
        pytest.approx(np.nan, nan_ok=True),
        "below_bracket",
    )
    assert first_root(margin, [10.0, 12.0], [1.0, 2.0])[1] == "none"
    assert first_root(margin, [10.0, 12.0], [np.nan, 2.0])[1] == "unsolved"
    assert first_root(margin, deltas, [1.0, np.nan, -1.0, 1.0])[1] == "unsolved"
    assert first_root(lambda d: np.nan, deltas, values)[1] == "unsolved"  # a solve inside fails


@pytest.mark.slow
def test_a_theory_model_and_the_designer_find_the_same_long_time_threshold():
    """One root-finder: the fixed-point job's δ_NN(∞) from its own δ grid equals the designer's from
    a geometric scan (both refined to 1e-4), the margin changes sign there, and the table reads it
    with the AT check at the root."""
    gelu = SimpleNamespace(activation="gelu", link="he2", a=1.0, b=0.0, loss=None, huber=None)
    fp = fixed_point_model(gelu, [7.0, 8.5, 10.0, 11.5], 0, log=lambda _: None)
    design = fixed_point_threshold(gelu, 0, (4.0, 16.0), 6, log=lambda _: None)
    assert fp["delta_nn_inf_status"] == design["status"] == "ok"
    assert fp["delta_nn_inf"] == pytest.approx(design["delta_nn_inf"], abs=3e-4)
    assert 8.5 < fp["delta_nn_inf"] < 10.0
    below, above = (FixedPointMargin(gelu, 0)(fp["delta_nn_inf"] + s * 0.01)[0] for s in (-1, 1))
    assert below > 0 > above
    value, status, stable = long_time_threshold(fp)
    assert (value, status, stable) == (fp["delta_nn_inf"], "ok", fp["delta_nn_inf_at"] < 1.0)
    # the refinement study: level 1 moves the root by < 1e-3; GeLU's RS state has its bulk edge at 0
    assert list(fp["refine_level"]) == [0, 1] and fp["refine_delta_nn_inf"][0] == fp["delta_nn_inf"]
    state = rs_state(fp)
    assert state["numerical_error"] < 1e-3 and state["state"] == "marginal"
    rows = refinement_rows({"gelu": {"fixed_point": fp}})
    assert [r["level"] for r in rows] == [0, 1] and rows[1]["q"] == pytest.approx(rows[0]["q"], rel=1e-5)


@pytest.mark.parametrize(
    ("at", "edge", "state"),
    [
        ([1.30, 1.32], [0.002, 0.002], "AT-unstable"),
        ([0.95, 1.02], [0.0, 0.0], "AT undetermined"),
        ([0.80, 0.81], [1e-9, 0.0], "marginal"),
        ([0.80, 0.81], [0.05, 0.05], "AT-stable"),
    ],
)
def test_the_rs_state_is_read_from_the_finer_level_with_its_change(at, edge, state):
    """AT − ΔAT > 1: unstable; AT + ΔAT < 1: stable, marginal where the bulk edge is 0; else
    undetermined; the numerical error is the change of the root."""
    fp = {
        "refine_level": np.array([0, 1]),
        "refine_delta_nn_inf": np.array([9.0, 9.004]),
        "refine_at_value": np.array(at),
        "refine_bulk_edge": np.array(edge),
    }
    got = rs_state(fp)
    assert got["state"] == state and got["numerical_error"] == pytest.approx(0.004)
    assert rs_state({})["state"] == "no root"


def test_simulated_crossing_needs_an_aligned_negative_eigenvalue():
    def cell(lam, ov):
        return {
            "spectrum_steps": np.array([5]),
            "eigenvalues": np.full((2, 1, 1), lam),
            "overlap2": np.full((2, 1, 1), ov),
        }

    cells = {6.0: cell(0.02, 0.5), 8.0: cell(-0.01, 0.05), 10.0: cell(-0.02, 0.6)}
    value, status, *_ = simulated_crossing(cells, 5)
    # δ = 8 is negative but not aligned: the crossing is interpolated between 8 and 10
    assert status == "ok" and 8.0 < value < 10.0


def test_replica_mean_and_standard_error_skip_missing_values():
    """Mean and sd/√R over the replicas where a value exists (an outlier may exist in some only)."""
    from featlearn.theory.delta_nn import replica_mean

    values = np.array([[1.0, np.nan, np.nan], [3.0, 2.0, np.nan], [5.0, 4.0, 7.0]])
    mean, se = replica_mean(values)
    np.testing.assert_allclose(mean[:2], [3.0, 3.0])
    assert mean[2] == 7.0 and np.isnan(se[2])  # one replica: no error
    np.testing.assert_allclose(
        se[:2], [np.std([1, 3, 5], ddof=1) / np.sqrt(3), np.std([2, 4], ddof=1) / np.sqrt(2)]
    )
    assert np.isnan(replica_mean(np.full((2, 1), np.nan))[0][0])


def test_dmft_model_replicas_are_independent_solves_and_their_mean():
    """Replica r of δ is ``dmft.solve`` with identity (..., δ, N, r); the file's value is the replica
    mean and its s.e. the replicas' sd/√R."""
    from featlearn.theory import dmft
    from featlearn.theory.delta_nn import dmft_model

    s = GELU_BUMP_MODEL
    out = dmft_model(s, [6.0], 300, 4, replicas=3, log=lambda _: None)
    identity = (s.seed, "dmft", s.experiment, s.activation, s.link, 6.0, 300, 2)
    direct = dmft.solve(
        s.activation, s.link, 6.0, s.lr, 4, 300, identity, a=s.a, b=s.b, r0=s.r0, noise=s.noise
    )
    np.testing.assert_array_equal(out["norm2_replicas"][2, 0], direct.norm2)
    np.testing.assert_allclose(out["norm2"], out["norm2_replicas"].mean(axis=0))
    sd = out["norm2_replicas"].std(axis=0, ddof=1)
    np.testing.assert_allclose(out["norm2_se"], sd / np.sqrt(3))
    assert out["norm2_replicas"][0, 0, 4] != out["norm2_replicas"][1, 0, 4]  # independent path sets


def test_delta_nn_of_replicas_is_averaged_and_needs_every_replica():
    from featlearn.analysis.theory_tables import delta_nn_curve, delta_nn_se

    deltas = np.array([2.0, 4.0, 6.0])
    # replica margins [δ, t] for t = 0, 1: crossings at t = 1 of 3.0 and 5.0; at t = 0 only one
    m0 = np.array([[1.0, 1.0], [-1.0, -1.0], [-2.0, -2.0]])
    m1 = np.array([[1.0, 1.0], [1.0, 1.0], [1.0, -1.0]])
    dm = {
        "delta": deltas,
        "steps": np.arange(2),
        "margin_replicas": np.stack([m0, m1]),
        "margin": (m0 + m1) / 2,
    }
    curve, status = delta_nn_curve(dm)
    assert status == ["none", "ok"] and curve[1] == pytest.approx(4.0)
    assert delta_nn_se(dm)[1] == pytest.approx(np.std([3.0, 5.0], ddof=1) / np.sqrt(2))
    single = {"delta": deltas, "steps": np.arange(2), "margin": m0}
    assert delta_nn_curve(single)[0][1] == pytest.approx(3.0) and np.isnan(delta_nn_se(single)[1])


def test_trajectory_agreement_combines_the_dmft_and_seed_errors():
    from featlearn.analysis.theory_tables import trajectory_agreement

    steps = np.arange(3)
    dm = {"delta": np.array([8.0]), "steps": steps}
    for key in ("norm2", "train_loss", "h11"):
        dm[key] = np.array([[1.0, 1.1, 1.4]])
        dm[f"{key}_se"] = np.array([[0.0, 0.03, 0.04]])
    cell = {"delta": 8.0, "d": 100, "steps": steps}
    for key in ("norm2", "train_loss", "h11"):
        cell[key] = np.array([[1.0, 1.0, 1.0], [1.0, 1.0, 1.2]])  # seed means 1.0, 1.0, 1.1
    row = trajectory_agreement("m", dm, cell, t_max=2)
    assert row["norm2_worst_t"] == 2 and row["norm2_max_err_rel"] == pytest.approx(0.3 / 1.1)
    seed_se = np.std([1.0, 1.2], ddof=1) / np.sqrt(2)
    assert row["norm2_err_se_rel"] == pytest.approx(np.hypot(0.04, seed_se) / 1.1)
