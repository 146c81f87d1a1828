"""δ_spec(d), the plateau's spectral threshold (docs/finite_size.md, (F14)): the zero crossing of a
linear regression of λ_min on δ and Fieller's interval, against Monte Carlo."""

import math

import numpy as np
import pytest

from featlearn.analysis.spectral_threshold import bracketing_window, crossing, spectral_threshold_rows, trend


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


def test_the_window_brackets_the_first_sign_change_and_rows_report_alignment():
    delta = np.repeat([4.0, 6.0, 8.0, 12.0, 16.0, 24.0], 2)
    lam = np.repeat([0.5, 0.3, 0.1, -0.1, -0.4, -1.5], 2)
    assert list(bracketing_window(delta, lam)) == [6.0, 8.0, 12.0, 16.0]
    assert list(bracketing_window(delta, np.abs(lam))) == list(np.unique(delta))  # never negative
    cells = [
        {
            "d": 300,
            "delta": x,
            "eigenvalues": np.array([[v + 0.01], [v - 0.01]]),
            "overlap2": np.array([[0.5], [0.5]]),
        }
        for x, v in zip(np.unique(delta), [0.5, 0.3, 0.1, -0.1, -0.4, -1.5], strict=True)
    ]
    (row,) = spectral_threshold_rows("gelu", cells)
    assert row["d"] == 300 and row["deltas"] == "6,8,12,16" and row["seeds"] == 8
    assert (
        8.0 < row["delta_spec"] < 12.0 and row["delta_spec_low"] < row["delta_spec"] < row["delta_spec_high"]
    )
    assert row["aligned_above"] == pytest.approx(1.0)


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
