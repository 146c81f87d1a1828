"""No crash on valid data, and every interval contains its own estimate: the finite-size analysis
(docs/finite_size.md, (F3)–(F9)) and the aligned crossing (F14) on random designs and truths.

Designs: 2–7 dimensions in doublings from 100, 250 or 500; 3–7 cells per d placed around the crossing
but off it by up to 1.5 widths; 3–60 trials per cell.  Truths: δ₅₀(d) a random walk in log₂ d (steps
of either sign, so rising, flat, falling or non-monotone: laws may misfit badly), widths w₀ (d/d_min)^(−μ)
with w₀ and μ drawn.  Each data set runs through ``finite_size_analysis`` (its verdict path) and,
for each limit law, ``scaling_laws.limit_interval``; an interval that misses its own estimate means
that the profile's search never reached the fit (a box that cannot contain it)."""

import math

import numpy as np
from scipy import special

from featlearn.analysis import finite_size as fs
from featlearn.analysis import scaling_laws as sl
from featlearn.analysis.spectral_threshold import aligned_crossing


def random_cells(rng):
    """Rows (d, delta, successes, trials) of one random design under one random truth."""
    n_d = int(rng.integers(2, 8))
    ds = [int(rng.choice([100, 250, 500])) * 2**k for k in range(n_d)]
    centre = rng.uniform(3, 8) + np.concatenate([[0.0], np.cumsum(rng.normal(0.15, 0.3, n_d - 1))])
    w0, mu = rng.uniform(0.05, 1.2), rng.uniform(-0.3, 0.8)
    rows = []
    for j, d in enumerate(ds):
        w = w0 * (d / ds[0]) ** -mu
        m, trials = int(rng.integers(3, 8)), int(rng.integers(3, 61))
        delta = np.unique(np.round(centre[j] + w * (np.linspace(-1.5, 1.5, m) + rng.uniform(-1.5, 1.5)), 3))
        p = 1 / (1 + np.exp(-(delta - centre[j]) / w))
        rows += [
            {"d": d, "delta": float(x), "successes": int(k), "trials": trials}
            for x, k in zip(delta, rng.binomial(trials, p), strict=True)
        ]
    return rows


def _contains(low, estimate, high):
    """low ≤ estimate ≤ high, a NaN side open."""
    return (math.isnan(low) or low <= estimate + 1e-6) and (math.isnan(high) or estimate <= high + 1e-6)


def test_finite_size_analysis_never_crashes_and_its_intervals_contain_their_estimates():
    """12 random data sets (255 cells): the analysis returns, the slope's interval contains the slope,
    each limit law's δ∞ interval (inside the declared range) contains the law's own δ∞, the law table
    writes no δ∞ and no level of a constant that the test of a constant
    rejects."""
    rng = np.random.default_rng(60)
    cells_seen, missed = 0, []
    for case in range(12):
        rows = random_cells(rng)
        cells_seen += len(rows)
        out = fs.finite_size_analysis(rows, "x", n_boot=0, diagnostics=False)
        summary = out["summary"][0]
        for law in out["laws"]:  # no δ∞ written, no rejected constant's level
            if any(key.startswith("delta_inf") for key in law):
                missed.append((case, law["law"], "delta_inf written"))
            if (
                law["law"] == "constant"
                and summary["constant_p"] < fs.CHECK_LEVEL
                and not math.isnan(law["level"])
            ):
                missed.append((case, "rejected constant's level written"))
        if math.isfinite(summary.get("slope", math.nan)):
            if not _contains(summary["slope_low"], summary["slope"], summary["slope_high"]):
                missed.append((case, "slope"))
        cells = fs.group_cells(rows)
        ds = fs.usable(fs.per_d_fits(cells))
        if len(ds) < 3:
            continue
        like = fs.joint_likelihood(cells, ds)
        range_high = 4 * float(max(like.peaks))
        for law in sl.LIMIT_LAWS:
            f = sl.fit(like, law)
            if 0 < f.delta_inf < range_high:
                iv = sl.limit_interval(like, f, 0.95, 0.0, range_high)
                if not _contains(iv.low, iv.estimate, iv.high):
                    missed.append((case, law, iv.low, iv.estimate, iv.high))
    assert cells_seen > 250
    assert not missed


def test_aligned_crossing_never_crashes_and_its_interval_contains_its_estimate():
    """1000 random scans (1–8 δ, 1–24 seeds each, logistic truths from nearly a step to flat, centred
    inside or outside the grid): the aligned crossing (F14) returns, and a finite estimate lies in its
    interval.  Narrow widths make ties (both outcomes at one δ only), a single δ is one tie, and wide
    ones flat shares whose maximiser runs to ±∞: the cases where the search started below its cut."""
    rng = np.random.default_rng(14)
    missed = []
    for case in range(1000):
        grid = np.round(np.sort(rng.uniform(0, 4, int(rng.integers(1, 9)))), 1)
        delta = np.repeat(grid, int(rng.integers(1, 25)))
        p = special.expit((delta - rng.uniform(-1, 5)) / 10 ** rng.uniform(-3, 0.5))
        out = aligned_crossing(delta, rng.random(delta.size) < p)
        if math.isfinite(out["estimate"]) and not _contains(out["low"], out["estimate"], out["high"]):
            missed.append(case)
    assert not missed
