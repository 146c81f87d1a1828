import numpy as np
import pytest

from featlearn.analysis.theory_tables import long_time_threshold, simulated_crossing
from featlearn.analysis.thresholds import first_crossing


def test_first_crossing_interpolates_the_first_sign_change():
    deltas = [2.0, 4.0, 6.0, 8.0]
    assert first_crossing(deltas, [3.0, 1.0, -1.0, 2.0]) == (5.0, "ok")
    assert first_crossing(deltas[::-1], [2.0, -1.0, 1.0, 3.0]) == (5.0, "ok")  # any order
    assert first_crossing(deltas, [-1.0, -2.0, -3.0, -4.0]) == (2.0, "below_grid")
    value, status = first_crossing(deltas, [1.0, 2.0, 3.0, 4.0])
    assert np.isnan(value) and status == "none"


def test_long_time_threshold_reports_the_at_check_at_the_crossing():
    fp = {
        "delta": np.array([4.0, 8.0, 12.0]),
        "margin": np.array([1.0, 0.5, -0.5]),
        "at_value": np.array([0.5, 0.9, 0.8]),
    }
    assert long_time_threshold(fp) == (pytest.approx(10.0), "ok", True)
    fp["at_value"] = np.array([0.5, 1.2, 0.8])
    assert long_time_threshold(fp)[2] is False


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
