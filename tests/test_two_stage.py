"""The two-stage escape prediction (theory.two_stage): its pieces against closed forms and Monte
Carlo, and one small cell end to end."""

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import yaml

from featlearn.pipeline import jobs
from featlearn.theory import two_stage

ROOT = Path(__file__).resolve().parents[1]
GRID = np.array([0.01, 0.02, 0.04, 0.08, 0.16])


@pytest.mark.parametrize(
    ("succeeded", "m_star", "monotone"),
    [
        ([0, 0, 1, 1, 1], np.sqrt(0.02 * 0.04), True),
        ([1, 1, 1, 1, 1], 0.01, True),
        ([0, 0, 0, 0, 0], np.inf, True),
        ([0, 1, 0, 1, 1], np.sqrt(0.04 * 0.08), False),
        ([0, 0, 0, 1, 0], np.inf, False),
    ],
)
def test_critical_overlap_is_the_start_of_the_successful_tail(succeeded, m_star, monotone):
    assert two_stage.critical_overlap(GRID, succeeded) == (pytest.approx(m_star), monotone)


def test_success_probability_is_that_of_the_gaussian_hard_coordinate():
    """(P2) against Monte Carlo of |u| ≥ √d m*, u ~ N(0, V)."""
    rng = np.random.default_rng(1)
    u = rng.standard_normal(400_000) * np.sqrt(12.0)
    for d, m_star in [(500, 0.1), (1000, 0.05), (250, 0.3)]:
        expected = np.mean(np.abs(u) >= np.sqrt(d) * m_star)
        assert two_stage.success_probability(m_star, 12.0, d) == pytest.approx(expected, abs=3e-3)
    assert two_stage.success_probability(np.inf, 12.0, 500) == 0.0


def test_drawn_outcomes_read_the_scan():
    """A scan whose failed kicks end at ρ = m₀ and whose successful kicks escape at 100 − 100 m₀:
    the failed-ρ quantiles are those of |u|/√d below m*, the steps those of 100 − 100|u|/√d above."""
    m0s = np.geomspace(0.005, 0.64, 30)
    m_star, variance, d = 0.08, 4.0, 1000
    final = np.where(m0s < m_star, m0s, 0.9)
    steps = np.where(m0s >= m_star, 100 - 100 * m0s, np.nan)
    quartiles, quantiles = two_stage.draw_outcomes(
        m0s, final, steps, m_star, variance, d, 200_000, np.random.default_rng(2)
    )
    m = np.abs(np.random.default_rng(3).standard_normal(400_000)) * np.sqrt(variance / d)
    np.testing.assert_allclose(
        quantiles, np.quantile(np.clip(m[m < m_star], m0s[0], None), (0.3, 0.5, 0.7)), rtol=0.02
    )
    np.testing.assert_allclose(
        quartiles, np.quantile(100 - 100 * m[m >= m_star], (0.25, 0.5, 0.75)), rtol=0.02
    )


def test_two_stage_cell_end_to_end():
    """A small cell: V(t₀) is the linear process's variance, larger kicks end closer to θ*, and the
    predicted probability grows with d exactly as (P2) says."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["escape"]["two_stage"] = {
        "horizon": 12,
        "n_paths": 600,
        "samples": 2000,
        "t0": [2, 3],
        "m0": [0.05, 0.2, 0.8],
        "models": {"gelu": {"sweep": "gelu", "delta": [6.0, 8.0]}},
    }
    s = replace(jobs.settings_of("escape_two_stage_cell", config, model="gelu"), d=(250, 1000))
    cell = two_stage.two_stage_cell(s, 8.0, log=lambda *_: None)
    assert cell["final_rho"].shape == (2, 3) and cell["p_success"].shape == (2, 2)
    assert np.all(np.diff(cell["final_rho"], axis=1) > 0)
    for j in range(2):
        for i, d in enumerate(s.d):
            expected = two_stage.success_probability(cell["m_star"][j], cell["variance"][j], d)
            assert cell["p_success"][i, j] == pytest.approx(expected)
    assert np.all(cell["variance"] > 0)
