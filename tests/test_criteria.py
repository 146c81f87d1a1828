"""The verdict rule (``criteria.agrees``): |value − target| ≤ max(2σ, tolerance), written once."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from featlearn.analysis import claims
from featlearn.analysis.criteria import agrees, allowed_gap, finite_median

ROOT = Path(__file__).resolve().parents[1]
ABOVE = math.inf  # direction for math.nextafter: the next float up


def test_the_allowed_gap_is_the_larger_of_two_sigma_and_the_tolerance():
    assert allowed_gap(0.125, 0.5) == 0.5
    assert allowed_gap(0.5, 0.25) == 1.0
    assert allowed_gap(0.25, 0.5) == 0.5  # 2σ = tolerance


@pytest.mark.parametrize("error", [None, math.nan])
def test_a_missing_error_counts_as_zero(error):
    assert allowed_gap(error, 0.5) == 0.5
    assert agrees(6.5, error, 6.0, 0.5)
    assert not agrees(6.75, error, 6.0, 0.5)


@pytest.mark.parametrize(("error", "tolerance", "gap"), [(0.125, 0.5, 0.5), (0.5, 0.25, 1.0)])
def test_agreement_holds_up_to_the_allowed_gap_inclusive_on_both_sides(error, tolerance, gap):
    for target in (6.0, -3.0):
        for sign in (1, -1):
            edge = target + sign * gap
            assert agrees(edge, error, target, tolerance)
            assert not agrees(math.nextafter(edge, sign * ABOVE), error, target, tolerance)


@pytest.mark.parametrize("value", [None, math.nan, math.inf])
def test_a_missing_value_agrees_with_nothing(value):
    assert agrees(value, 0.1, 6.0, 0.5) is False


def test_agrees_returns_a_python_bool():
    assert agrees(6.0, 0.1, 6.0, 0.5) is True


def test_the_claims_partly_band_is_twice_the_allowed_gap():
    error, tolerance, target = 0.125, 0.5, 6.0  # allowed gap 0.5, partly up to 1.0
    assert claims.closeness(6.5, error, target, tolerance) == claims.REPRODUCED
    assert claims.closeness(math.nextafter(6.5, ABOVE), error, target, tolerance) == claims.PARTLY
    assert claims.closeness(5.0, error, target, tolerance) == claims.PARTLY
    assert claims.closeness(7.0, error, target, tolerance) == claims.PARTLY
    assert claims.closeness(math.nextafter(7.0, ABOVE), error, target, tolerance) == claims.NOT_REPRODUCED
    assert claims.closeness(7.0, 0.5, target, 0.25) == claims.REPRODUCED  # 2σ = 1.0 > tolerance
    assert claims.closeness(8.0, 0.5, target, 0.25) == claims.PARTLY
    assert claims.closeness(None, error, target, tolerance) == claims.NOT_TESTED
    assert claims.closeness(math.nan, error, target, tolerance) == claims.NOT_TESTED


def test_the_rule_is_written_only_in_criteria():
    """No hand-written copy of max(2σ, tolerance) elsewhere in the package or the scripts."""
    copy = re.compile(r"max\(\s*2(\.0)?\s*\*")
    files = [*(ROOT / "src" / "featlearn").rglob("*.py"), *(ROOT / "workflow" / "scripts").glob("*.py")]
    found = [f.name for f in files if f.name != "criteria.py" and copy.search(f.read_text())]
    assert found == []


def test_finite_median_ignores_what_is_not_finite():
    assert finite_median([3.0, math.nan, 1.0, math.inf, 2.0]) == 2.0
    assert finite_median(np.array([1.0, 2.0, np.nan])) == 1.5
    assert math.isnan(finite_median([math.nan])) and math.isnan(finite_median([]))
