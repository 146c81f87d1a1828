"""δ_spec(d), the plateau's spectral threshold (docs/finite_size.md, (F14)): the zero crossing of a
linear regression of λ_min on δ and Fieller's interval, against Monte Carlo."""

import math

import numpy as np
import pytest

from featlearn.analysis.spectral_threshold import crossing, spectral_threshold_rows, trend


def test_fieller_interval_covers_the_crossing_at_its_level():
    """λ_min = 0.3 (9.5 − δ)·(−1) + noise on five δ × four seeds: the 95 % interval covers 9.5 in
    93–97 % of 2000 replicates, and the estimate is unbiased to within its spread."""
    rng = np.random.default_rng(7)
    delta = np.repeat([8.0, 9.0, 10.0, 11.0, 12.0], 4)
    hits, estimates = 0, []
    for _ in range(2000):
        lam = -0.3 * (delta - 9.5) + 0.2 * rng.standard_normal(delta.size)
        estimate, low, high, slope, spread = crossing(delta, lam)
        hits += low <= 9.5 <= high
        estimates.append(estimate)
    assert 0.93 <= hits / 2000 <= 0.97
    assert abs(np.mean(estimates) - 9.5) < 0.02


def test_an_insignificant_slope_leaves_the_interval_open():
    rng = np.random.default_rng(1)
    delta = np.repeat([8.0, 9.0, 10.0], 3)
    _, low, high, _, _ = crossing(delta, 0.001 * (9 - delta) + rng.standard_normal(delta.size))
    assert math.isnan(low) and math.isnan(high)
    assert all(math.isnan(x) for x in crossing([1.0, 1.0, 1.0], [0.1, 0.2, 0.3]))


def test_rows_regress_every_seed_of_a_d_and_report_alignment():
    grid = [8.0, 9.0, 10.0, 11.0]
    cells = [
        {
            "d": d,
            "delta": x,
            "eigenvalues": np.array([[v + 0.01], [v - 0.01]]),
            "overlap2": np.array([[0.5], [0.5]]),
        }
        for d in (300, 600)
        for x, v in zip(grid, 0.1 * (9.5 - np.array(grid)) * (d / 300), strict=True)
    ]
    rows = spectral_threshold_rows("gelu", cells)
    assert [r["d"] for r in rows] == [300, 600] and rows[0]["deltas"] == "8,9,10,11" and rows[0]["seeds"] == 8
    for row in rows:
        assert row["delta_spec"] == pytest.approx(9.5)
        assert row["delta_spec_low"] < 9.5 < row["delta_spec_high"]
        assert row["aligned_above"] == pytest.approx(1.0)  # every seed above 9.5 is negative and aligned


def test_trend_is_the_weighted_least_squares_of_the_crossings():
    rows = [
        {"d": d, "delta_spec": y, "delta_spec_low": y - 1.96 * e, "delta_spec_high": y + 1.96 * e}
        for d, y, e in ((300, 9.0, 0.2), (600, 9.3, 0.2), (1200, 9.6, 0.4))
    ]
    out = trend(rows)
    w = np.array([25.0, 25.0, 6.25])
    y = np.array([9.0, 9.3, 9.6])
    assert out["mean"] == pytest.approx(np.sum(w * y) / w.sum())
    assert out["mean_err"] == pytest.approx(1 / np.sqrt(w.sum()))
    assert out["slope_per_doubling"] == pytest.approx(0.3, abs=1e-9)  # the three lie on one line
    assert math.isnan(trend(rows[:2])["slope_per_doubling"]) and trend(rows[:2])["constant_p"] < 0.5
