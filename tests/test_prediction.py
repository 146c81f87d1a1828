"""Predicted success from the linear hard-coordinate process (theory.prediction), its tables, and
the twin paths of the DMFT with signal."""

import numpy as np
import pytest
from scipy import special, stats

from featlearn.analysis.prediction_tables import delta50_rows, horizon_limited, prediction_rows
from featlearn.analysis.sweeps import cell_summary
from featlearn.model.links import get_link
from featlearn.model.loss import loss_derivatives
from featlearn.theory import dmft, prediction


def test_gaussian_paths_have_the_requested_covariance():
    t = np.arange(1, 7)
    cov = np.minimum.outer(t, t) * 0.7  # a random walk: positive definite
    u = prediction.gaussian_paths(cov, 200_000, np.random.default_rng(1))
    assert np.allclose(np.cov(u.T), cov, atol=0.03 * cov.max())


def test_crossing_probability_of_a_frozen_process_is_the_normal_tail():
    """u^t ≡ u⁰ ~ N(0, σ²), ‖θ‖ ≡ 1: P(max ρ ≥ ρ_c) = P(|Z| σ/√d ≥ ρ_c) = erfc(ρ_c √d / (σ √2))."""
    sigma, d, rho_c, samples = 2.0, 400, 0.15, 200_000
    cov = np.full((5, 5), sigma**2)
    u = prediction.gaussian_paths(cov, samples, np.random.default_rng(2))
    p, steps, final = prediction.crossing_statistics(u, np.ones(5), d, rho_c)
    exact = special.erfc(rho_c * np.sqrt(d) / (sigma * np.sqrt(2)))
    assert abs(p - exact) < 4 * np.sqrt(exact * (1 - exact) / samples)
    assert np.all(steps == 0)  # a frozen path crosses at t = 0 or never
    # the paths that never cross end below ρ_c, with |Z| σ/√d conditioned on that
    assert np.all(final < rho_c)
    cut = rho_c * np.sqrt(d) / sigma
    q50 = stats.halfnorm.ppf(0.5 * stats.halfnorm.cdf(cut)) * sigma / np.sqrt(d)
    assert final[1] == pytest.approx(q50, rel=0.02)


def test_crossing_probability_grows_with_the_process_and_falls_with_d():
    t = np.arange(0, 30)
    cov = np.outer(np.exp(0.1 * t), np.exp(0.1 * t))  # u^t = e^{0.1 t} u⁰
    out = prediction.predict(cov, np.ones(30), [100, 1000, 10_000], [0.2, 0.4], 20_000, ("test",))
    p = out["p_success"]
    assert np.all(np.diff(p, axis=0) < 0)  # larger d: lower
    assert np.all(np.diff(p, axis=1) < 0)  # higher ρ_c: lower
    # e^{0.1·29} |u⁰| / √d ≥ ρ_c exactly when |u⁰| ≥ ρ_c √d e^{−2.9}
    exact = special.erfc(0.2 * 10 * np.exp(-2.9) / np.sqrt(2))
    assert p[0, 0] == pytest.approx(exact, abs=0.015)


def _pred_cell(delta, p):
    return {
        "delta": delta,
        "d": np.array([500, 1000]),
        "rho_c": np.array([0.45]),
        "p_success": np.array([[p], [p / 2]]),
        "p_success_half_horizon": np.array([[p / 2], [p / 4]]),
        "crossing_step": np.full((2, 1, 3), 10.0),
        "final_rho_failed": np.full((2, 1, 3), 0.1),
    }


def test_delta50_verdict_uses_the_profile_interval_or_the_tolerance():
    """The predicted δ₅₀ agrees with the measured one when it lies inside the measured profile
    interval (its side towards the prediction), or within the tolerance; 2σ stands in for an open
    side."""

    class S:
        activation, link = "gelu", "bump"

    cells = [_pred_cell(8.0, 0.2), _pred_cell(10.0, 0.8)]  # d = 500 crosses ½ at 9.0
    fit = {"d": 500, "delta50": 9.25, "delta50_err": 0.05, "delta50_low": 9.15, "delta50_high": 9.35}
    fits = [fit | {"status": "ok"}]
    rows = delta50_rows("gelu_bump", S, "gelu_bump", cells, fits, 10.6, 0.3)
    by_d = {r["d"]: r for r in rows}
    assert by_d[500]["delta50_predicted"] == pytest.approx(9.0)
    assert by_d[500]["agrees"] is True and by_d[500]["tolerance"] == 0.3  # |0.25| ≤ 0.3
    fits[0] |= {"delta50": 9.5, "delta50_low": 9.4, "delta50_high": 9.6}
    assert delta50_rows("gelu_bump", S, "gelu_bump", cells, fits, 10.6, 0.3)[0]["agrees"] is False
    fits[0]["delta50_low"] = 8.9  # the interval's lower side now reaches the prediction
    row = delta50_rows("gelu_bump", S, "gelu_bump", cells, fits, 10.6, 0.3)[0]
    assert row["agrees"] is True and row["tolerance"] == pytest.approx(0.6)
    fits[0] |= {"delta50_low": np.nan, "delta50_err": 0.3}  # open below: 2σ = 0.6 covers the gap
    assert delta50_rows("gelu_bump", S, "gelu_bump", cells, fits, 10.6, 0.3)[0]["agrees"] is True
    assert "agrees" not in by_d[1000]  # no sweep at d = 1000: no verdict
    assert np.isnan(by_d[1000]["delta50_predicted"])  # 0.1 → 0.4 never reaches ½


def test_a_prediction_set_by_the_horizon_is_flagged():
    assert horizon_limited(9.0, "ok", 9.1, 0.3) is False
    assert horizon_limited(10.5, "ok", 9.4, 0.3) is True  # moves by more than the tolerance over T/2
    assert horizon_limited(10.5, "ok", np.nan, 0.3) is True  # no crossing by T/2
    assert horizon_limited(np.nan, "none", np.nan, 0.3) is True  # no crossing by T
    assert horizon_limited(np.nan, "below_grid", np.nan, 0.3) is False


def test_prediction_rows_pair_each_cell_with_the_sweep_cell_at_the_same_d_and_delta():
    sweep_rows = [
        {
            "d": 500,
            "delta": 8.0,
            "trials": 8,
            "diverged": 0,
            "successes": 2,
            "escape_step_median": 40.0,
            "rho_failed_median": 0.2,
        },
    ]
    rows = prediction_rows("gelu_bump", "gelu_bump", [_pred_cell(8.0, 0.2)], sweep_rows)
    assert len(rows) == 2
    measured = next(r for r in rows if r["d"] == 500)
    assert measured["p_success_empirical"] == 0.25 and measured["p_success_predicted"] == 0.2
    assert "p_success_empirical" not in next(r for r in rows if r["d"] == 1000)


def test_cell_summary_quantiles_of_the_failed_trials_only():
    rho = np.array([0.1, 0.2, 0.3, 0.9, 0.95])
    cell = {
        "d": 100,
        "delta": 5.0,
        "final_rho": rho,
        "success": rho > 0.5,
        "diverged": np.zeros(5, bool),
        "stop_reason": np.array(["budget"] * 5),
        "escape_step": np.array([-1, -1, -1, 10, 12]),
    }
    settings = {"activation": "gelu", "link": "he2", "m": 1, "init": "random"}
    row = cell_summary("s", settings, cell)
    assert row["rho_failed_median"] == pytest.approx(0.2)
    assert row["rho_median"] == pytest.approx(0.3)


def _exact_first_force(m, a=1.0, b=0.0, r0=1.0, nodes=120):
    """E[g ℓ′(y, m g + r₀ u)] at t = 0 (y = bump(g), u ~ N(0, 1)) by 2-D Gauss–Hermite."""
    x, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / w.sum()
    g, u = np.meshgrid(x, x, indexing="ij")
    y = get_link("bump").h(g.reshape(-1, 1))
    _, r, _ = loss_derivatives("gelu", a, b, y, m * g.ravel() + r0 * u.ravel())
    return float(np.sum(np.outer(w, w).ravel() * g.ravel() * r))


def test_twin_paths_remove_the_spurious_forcing_of_the_overlap():
    """With twins (g, −g) the DMFT's first overlap step −η E[g r⁰] is far closer to its quadrature
    value at small m than with independent paths, and exactly zero at m → 0."""
    m0, paths, lr = 0.05, 2000, 1.0
    exact = _exact_first_force(m0)
    errors = {}
    for twins in (False, True):
        errs = []
        for seed in range(6):
            res = dmft.solve("gelu", "bump", 8.0, lr, 1, paths, ("twins", seed), m0=m0, twins=twins)
            errs.append((m0 - res.m[1]) / lr - exact)
        errors[twins] = np.sqrt(np.mean(np.square(errs)))
    assert errors[True] < errors[False] / 3
    # from a vanishing overlap, twins keep it vanishing; independent paths push it by ~N^{-1/2}
    tiny = {
        t: dmft.solve("gelu", "bump", 8.0, lr, 5, paths, ("twins", 0), m0=1e-9, twins=t).m
        for t in (False, True)
    }
    assert np.max(np.abs(tiny[True])) < 1e-7
    assert np.max(np.abs(tiny[False])) > 1e-4
    with pytest.raises(ValueError, match="even"):
        dmft.solve("gelu", "bump", 8.0, lr, 1, 101, ("twins",), twins=True)
