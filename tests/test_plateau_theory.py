"""The plateau against the fixed point (docs/outlier.md, (O19)–(O21)) on synthetic plateau cells with
known finite-d laws: inside the family of approach laws, between two of its laws, and outside it."""

import math

import numpy as np
import pytest

from featlearn.analysis.plateau_theory import (
    extrapolate,
    growth_fit,
    law_fits,
    law_robust_verdict,
    limit_status,
    observable_rows,
    plateau_threshold_rows,
)

DS = (600, 1200, 2400, 4800)


def cells(law, deltas=(9.0, 10.0), seeds=8, sd=0.01, seed=0, margin_root=None):
    """Plateau cells whose every observable has seed mean ``law(d, δ)`` and seed s.d. ``sd``; the
    semi-empirical margin is 0.3 (root(d) − δ) + noise where ``margin_root`` is given."""
    rng = np.random.default_rng(seed)
    out = []
    for d in DS:
        for delta in deltas:
            mean = law(d, delta)
            value = mean + sd * rng.standard_normal(seeds)
            cell = {
                "d": d,
                "delta": delta,
                "final_norm": np.sqrt(value),
                "final_train_loss": value,
                "bulk_edge": value,
                "eigenvalues": np.column_stack([value, value + 1]),
                "overlap2": np.column_stack([value, value]),
                "converged": np.ones(seeds, bool),
            }
            if margin_root is not None:
                cell["semi_empirical_margin"] = 0.3 * (margin_root(d) - delta) + 0.01 * rng.standard_normal(
                    seeds
                )
            out.append(cell)
    return out


def fixed_point(value, deltas=(9.0, 10.0)):
    n = len(deltas)
    return {
        "delta": np.array(deltas),
        "q": np.full(n, value),
        "train_loss": np.full(n, value),
        "bulk_edge": np.full(n, value),
        "outlier": np.full(n, value),
        "overlap2": np.full(n, value),
    }


def test_extrapolate_recovers_an_exact_one_over_d_law():
    d = np.array(DS, float)
    fit = extrapolate(d, 0.8 + 30.0 / d, np.full(d.size, 1e-3))
    assert fit["limit"] == pytest.approx(0.8, abs=1e-12) and fit["slope"] == pytest.approx(30.0, rel=1e-9)
    assert fit["gof_p"] == pytest.approx(1.0) and fit["n_d"] == 4
    assert math.isnan(extrapolate(d[:1], [0.8], [1e-3])["limit"])


def test_a_plateau_on_the_fixed_point_agrees_and_one_six_percent_above_disagrees():
    """Truth inside the family (m_∞ + 30/d), errors small enough that 4 d reject the other laws: the
    fixed point at m_∞ agrees on every observable; one at m_∞/1.06 (the plateau 6 % above it)
    disagrees, with a gap interval that holds the true gap."""
    data = cells(lambda d, delta: 0.8 + 30.0 / d, sd=0.002)
    same = observable_rows("gelu", data, fixed_point(0.8))
    assert {r["verdict"] for r in same} == {"agrees under the laws"}
    lower = observable_rows("gelu", data, fixed_point(0.8 / 1.06))
    assert {r["verdict"] for r in lower} == {"disagrees under the laws"}
    true_gap = 0.8 - 0.8 / 1.06
    assert all(r["gap_low"] <= true_gap <= r["gap_high"] for r in lower)


def test_a_one_over_sqrt_d_truth_is_judged_under_its_own_law():
    """m_d = m_∞ + 3/√d exactly, s.e. 0.0007 at 4 d: the 1/d and d^(−2/3) laws are rejected, the 1/√d
    law is not, and under it alone the fixed point at m_∞ agrees and one 0.01 away disagrees."""
    d = np.array(DS, float)
    fits = law_fits(d, 0.8 + 3.0 / np.sqrt(d), np.full(d.size, 7e-4))
    assert [tag for tag, f in fits.items() if f["admissible"]] == ["inv_sqrt_d"]
    growth = growth_fit(d, 0.8 + 3.0 / np.sqrt(d), np.full(d.size, 7e-4))
    word, gap, low, high = law_robust_verdict(fits, growth, 0.8, 0.0)
    assert word == "agrees under the laws" and math.isnan(gap) and low <= 0.0 <= high
    assert law_robust_verdict(fits, growth, 0.79, 0.0)[0] == "disagrees under the laws"


def test_a_truth_outside_every_law_is_not_judged():
    """m_d = m_∞ + 0.3 d^(−0.2), slower than every law of the family: with 4 d and small errors
    every law is rejected, and no verdict is given."""
    data = cells(lambda d, delta: 0.8 + 0.3 * d**-0.2, sd=0.002)
    rows = observable_rows("gelu", data, fixed_point(0.8))
    assert {r["verdict"] for r in rows} == {"undetermined (every law rejected)"}
    assert all(math.isnan(r["limit_low"]) for r in rows)


def test_laws_that_disagree_leave_the_verdict_undetermined():
    """The bulk edge's case: an edge at 0 approached as 0.6/√d, seen at d = 300, 600, 1200 with
    s.e. 0.003. No law is rejected; under 1/d the limit is positive (0.012, interval clear of 0),
    under 1/√d it is 0, so (O20) is undetermined, and the gap's interval (the union) holds 0 (the
    growth alternative taken as rejected here; on these three points it fits, which alone leaves the
    verdict undetermined)."""
    d = np.array([300.0, 600.0, 1200.0])
    fits = law_fits(d, 0.6 / np.sqrt(d), np.full(d.size, 0.003))
    assert all(f["admissible"] for f in fits.values())
    assert fits["inv_d"]["limit"] - 1.96 * fits["inv_d"]["limit_se"] > 0
    rejected = {"admissible": False, "gof_p": 0.0, "n_d": 3}
    word, gap, low, high = law_robust_verdict(fits, rejected, 0.0, 0.0)
    assert word == "undetermined (laws disagree)"
    growth = growth_fit(d, 0.6 / np.sqrt(d), np.full(d.size, 0.003))
    assert law_robust_verdict(fits, growth, 0.0, 0.0)[0].startswith("undetermined (growth in ln d fits")
    assert gap == pytest.approx(fits["inv_d"]["limit"]) and low < 0 < high


def test_the_plateau_threshold_extrapolates_the_margin_zero():
    """The semi-empirical margin's zero at δ_c(d) = 9 + 600/d: per d within its interval, and the
    d → ∞ limit's interval holds 9; δ_spec given per d is set against that limit."""
    data = cells(
        lambda d, delta: 0.8, deltas=(8.5, 9.0, 9.5, 10.0, 10.5), margin_root=lambda d: 9.0 + 600.0 / d
    )
    spec = {d: (9.3, 9.1, 9.5) for d in DS}
    rows = plateau_threshold_rows("gelu", data, 9.13, spec)
    assert [r["d"] for r in rows] == [*(str(d) for d in DS), "inf"]
    for r, d in zip(rows, DS, strict=False):
        assert r["delta_nn_gd_low"] <= 9.0 + 600.0 / d <= r["delta_nn_gd_high"]
    limit = rows[-1]
    assert limit["delta_nn_gd_low"] <= 9.0 <= limit["delta_nn_gd_high"] and limit["delta_nn_rs"] == 9.13
    assert rows[0]["spec_minus_gd_inf"] == pytest.approx(9.3 - limit["delta_nn_gd"])


def test_two_d_check_no_law():
    """With two d no law can be rejected, so no limit is judged: a truth flat in d and a 30/d truth
    are both undetermined, and their rows carry no level."""
    two = [600, 1200]
    for law in (lambda d, delta: 0.8, lambda d, delta: 0.8 + 30.0 / d):
        rows = observable_rows("gelu", [c for c in cells(law) if c["d"] in two], fixed_point(0.8))
        assert {r["verdict"] for r in rows} == {"undetermined (2 d: no law can be rejected)"}
        assert all(math.isnan(r["limit"]) and math.isnan(r["limit_inv_d"]) for r in rows)


def test_the_plateau_thresholds_limit_is_judged_with_a_no_limit_alternative():
    """(O21) judged as every limit: with two d it is undetermined and no level is written; a margin
    zero growing in ln d (9 + 0.3 log₂(d/600)) is fitted by growth in ln d, so it is undetermined
    too, with no level in the d → ∞ row and no δ_spec set against one; 9 + 600/d is identified under
    the laws, its growth alternative rejected; where an approach law and growth both fit (noisy
    thresholds), undetermined."""
    roots = {"growth": lambda d: 9.0 + 0.3 * np.log2(d / 600.0), "limit": lambda d: 9.0 + 600.0 / d}
    spec = {d: (9.3, 9.1, 9.5) for d in DS}
    deltas = (8.5, 9.0, 9.5, 10.0, 10.5)
    for name, root in roots.items():
        data = cells(lambda d, delta: 0.8, deltas=deltas, margin_root=root)
        limit = plateau_threshold_rows("gelu", data, 9.13, spec)[-1]
        two = plateau_threshold_rows("gelu", [c for c in data if c["d"] in (600, 1200)], 9.13, spec)
        assert two[-1]["limit_status"] == "undetermined (2 d: no law can be rejected)"
        assert math.isnan(two[-1]["delta_nn_gd"]) and math.isnan(two[-1]["delta_nn_gd_low"])
        assert all(math.isnan(two[-1][f"limit_{tag}"]) for tag in ("inv_d", "inv_d2_3", "inv_sqrt_d"))
        if name == "growth":  # every approach law misfits it here
            assert limit["limit_status"] == "undetermined (every law rejected)"
            assert math.isnan(limit["delta_nn_gd_low"]) and math.isnan(limit["limit_inv_d"])
        else:
            assert limit["limit_status"] == "identified under the laws" and limit["gof_p_growth"] < 0.05
            assert limit["delta_nn_gd_low"] <= 9.0 <= limit["delta_nn_gd_high"]
    noisy = np.array([0.3, 0.3, 0.3, 0.3])
    laws = law_fits(np.array(DS, float), 9.0 + 600.0 / np.array(DS), noisy)
    growth = growth_fit(np.array(DS, float), 9.0 + 600.0 / np.array(DS), noisy)
    assert limit_status(laws, growth).startswith("undetermined (growth in ln d fits, p = ")
