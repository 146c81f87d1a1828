"""The finite-size analysis (docs/finite_size.md): per-d profiles against brute force, the laws'
joint-likelihood fits and profiles, their coverage on synthetic data of a known law, the verdicts on
the cells the docs report, and the rows the workflow writes."""

import importlib.util
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import optimize, special, stats

from featlearn.analysis import claims
from featlearn.analysis import finite_size as fs
from featlearn.analysis import scaling_laws as sl
from featlearn.analysis.thresholds import fit_logistic, logistic
from featlearn.analysis.width_profile import (
    WidthProfile,
    delta50_interval,
    firth_profile,
    profile_over_centre,
    profile_over_width,
)
from featlearn.analysis.width_scaling import fit_width_law
from featlearn.io.results import read_csv, write_csv

DOCS_CELLS = Path(__file__).parent / "data" / "docs_cells.csv"
BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
D = np.array([250.0, 500.0, 1000.0, 2000.0, 4000.0])


def log_center(d):
    return 10.0 - 3.0 / np.log(d)


def power_width(d):
    return 2.0 * np.asarray(d, dtype=float) ** -0.25


def simulate(trials, seed, center=log_center, width=power_width, shape=None, n_delta=9, span=2.5, ds=D):
    """{d: Cells} with success probability P((δ − center(d))/width(d)); ``shape`` maps d to P (default
    the logistic)."""
    rng = np.random.default_rng(seed)
    cells = {}
    for d in np.asarray(ds).astype(int):
        m, s = center(d), width(d)
        x = np.linspace(-span, span, n_delta)
        p = (shape or {}).get(d, lambda x: 1 / (1 + np.exp(-x)))(x)
        n = np.full(n_delta, trials)
        cells[d] = fs.Cells(m + s * x, rng.binomial(n, p), n)
    return cells


def cell_rows(cells, sweep="x"):
    return [
        {"sweep": sweep, "d": d, "delta": delta, "successes": k, "trials": n}
        for d, c in cells.items()
        for delta, k, n in zip(c.delta, c.successes, c.trials, strict=True)
    ]


def brute_loglik(delta, k, n, m, beta):
    z = beta * (np.asarray(delta) - m)
    return np.sum(k * special.log_expit(z) + (n - k) * special.log_expit(-z))


QUAD_250 = (np.array([3.0, 3.5, 4.0, 5.0, 6.0, 7.0]), np.array([9, 11, 17, 27, 29, 30]), np.full(6, 30))


# ------------------------------------------------------------------------------------ per-d profile


def test_width_profile_is_the_maximum_over_the_width():
    """(F2) against a bounded scalar search of ℓ(m, β) over β at each m; and (F1) maximised over m at
    fixed β against the same search over m."""
    delta, k, n = QUAD_250
    for m in (2.0, 3.5, 4.2, 6.0, 8.0):
        best = optimize.minimize_scalar(
            lambda b, m=m: -brute_loglik(delta, k, n, m, b),
            bounds=(0, 300),
            method="bounded",
            options={"xatol": 1e-10},
        )
        value, beta = profile_over_width(delta, k, n, m)
        assert value[0] == pytest.approx(-best.fun, abs=1e-8)
    for beta in (0.3, 1.5, 6.0):
        best = optimize.minimize_scalar(
            lambda m, b=beta: -brute_loglik(delta, k, n, m, b),
            bounds=(0, 10),
            method="bounded",
            options={"xatol": 1e-10},
        )
        assert profile_over_centre(delta, k, n, beta)[0] == pytest.approx(-best.fun, abs=1e-8)


def test_tabulated_profile_interpolates_the_exact_one_and_peaks_at_the_mle():
    delta, k, n = QUAD_250
    table = WidthProfile.from_cells(delta, k, n)
    m = np.linspace(1.0, 9.0, 57)
    exact = profile_over_width(delta, k, n, m)[0]
    value, slope = table(m)
    np.testing.assert_allclose(value, exact, atol=1e-4)
    h = 1e-5
    numeric = (profile_over_width(delta, k, n, m + h)[0] - profile_over_width(delta, k, n, m - h)[0]) / (
        2 * h
    )
    np.testing.assert_allclose(slope, numeric, atol=1e-2 * np.abs(numeric).max())
    mle = fit_logistic(delta, k, n)
    assert table.peak == pytest.approx(mle.delta50, abs=1e-4)
    assert table.curvature_error() == pytest.approx(mle.delta50_err, rel=0.01)  # Wald: I⁻¹ of the MLE
    assert table(np.array([-50.0]))[0][0] < table(np.array([0.0]))[0][0]  # continues beyond the grid


def test_delta50_interval_is_where_the_profile_drops_by_the_chi2_cut():
    """(F3) against a brute-force scan of the exact profile; Firth's interval is finite on separated
    data, where the plain profile is flat over the gap."""
    delta, k, n = QUAD_250
    mle = fit_logistic(delta, k, n)
    low, high = delta50_interval(delta, k, n, mle.delta50, firth=False)
    grid = np.linspace(3.0, 4.5, 3001)
    values = profile_over_width(delta, k, n, grid)[0]
    inside = grid[values >= values.max() - 0.5 * stats.chi2.ppf(0.95, 1)]
    assert (low, high) == pytest.approx((inside.min(), inside.max()), abs=1e-3)
    k_sep = np.array([0, 0, 0, 30, 30, 30])
    firth = fit_logistic(delta, k_sep, n)
    low, high = delta50_interval(delta, k_sep, n, firth.delta50, firth=True)
    assert firth.status == "firth" and 4.0 < low < firth.delta50 < high < 5.0
    penalised = firth_profile(delta, k_sep, n, [low, firth.delta50, high])
    assert penalised[1] - penalised[0] == pytest.approx(1.92, abs=0.01)
    assert penalised[1] - penalised[2] == pytest.approx(1.92, abs=0.01)


# -------------------------------------------------------------------------------------------- laws


def test_shape_laws_are_the_named_laws_and_reduce_to_the_linear_one():
    """(F4d) is δ∞ − c d^(−ν) and (F4e) δ∞ − c/ln(d/d₀); at a vanishing shape both are the linear law."""
    d = np.array([250.0, 1000.0, 16000.0])
    t = np.log2(d / 250)
    a, b = 5.0, 0.4
    nu = 0.3
    c = b / (nu * np.log(2)) * 250**nu
    np.testing.assert_allclose(
        sl.law_value("power", t, (a, b, nu)), sl.delta_inf("power", (a, b, nu)) - c * d**-nu
    )
    lam = 0.2
    d0 = 250 * 2 ** (-1 / lam)
    c_log = b / lam**2 * np.log(2)
    expected = sl.delta_inf("log", (a, b, lam)) - c_log / np.log(d / d0)
    np.testing.assert_allclose(sl.law_value("log", t, (a, b, lam)), expected)
    for law in sl.LIMIT_LAWS:
        np.testing.assert_allclose(sl.law_value(law, t, (a, b, 1e-9)), a + b * t, rtol=1e-7)
        assert sl.delta_inf(law, (a, b, sl.SHAPE_MIN)) == np.inf


def test_grid_maximise_finds_the_maximum_of_a_tilted_quadratic():
    centre = np.array([1.3, -0.7])
    hess = np.array([[3.0, 2.5], [2.5, 2.5]])  # a narrow diagonal ridge

    def values(x):
        r = x - centre
        return -0.5 * np.einsum("...i,ij,...j->...", r, hess, r)

    x, top = sl.grid_maximise(values, [np.linspace(-5, 5, 17)] * 2, [-np.inf] * 2, [np.inf] * 2)
    np.testing.assert_allclose(x, centre, atol=1e-4)
    assert top == pytest.approx(0.0, abs=1e-7)


@pytest.fixture(scope="module")
def quad_like():
    cells = fs.group_cells([r for r in read_csv(DOCS_CELLS) if r["sweep"] == "quad"])
    return cells, fs.joint_likelihood(cells, sorted(cells))


def test_law_fits_are_the_maxima_of_the_joint_likelihood(quad_like):
    """Each law's fit against Nelder–Mead from many starts on the same likelihood; nested laws never
    fit better than the laws that contain them."""
    _, like = quad_like
    fits = {law: sl.fit(like, law) for law in sl.LAWS}
    for law in ("quadratic", "log"):

        def nll(x, law=law):
            params = (*x[:2], np.exp(x[2])) if law == "log" else x
            return -like.at(sl.law_value(law, like.t, params))

        best = min(
            (
                optimize.minimize(
                    nll, [3.7, 0.1, s], method="Nelder-Mead", options={"xatol": 1e-9, "fatol": 1e-11}
                )
                for s in (-6.0, -2.0, 0.0, 1.0)
            ),
            key=lambda r: r.fun,
        )
        assert fits[law].loglik >= -best.fun - 1e-6
    assert fits["constant"].loglik <= fits["linear"].loglik <= fits["quadratic"].loglik + 1e-9
    for law in sl.LIMIT_LAWS:
        assert fits[law].loglik >= fits["linear"].loglik - 1e-9
    assert fits["linear"].loglik <= like.saturated


def test_limit_profile_is_the_constrained_maximum(quad_like):
    """ℓ_p(D) of (F5) against Nelder–Mead over (c, ln shape) at fixed D, from many starts."""
    _, like = quad_like
    for law in sl.LIMIT_LAWS:
        for d_inf in (4.3, 6.0, 12.0):

            def nll(x, law=law, d_inf=d_inf):
                return -like.at(d_inf - x[0] * sl.decay(law, like.t, np.exp(x[1])))

            starts = [(d_inf - 3.7, s) for s in np.linspace(-10, 2, 7)]
            best = min((optimize.minimize(nll, s, method="Nelder-Mead") for s in starts), key=lambda r: r.fun)
            assert sl.profile_limit(like, law, d_inf) == pytest.approx(-best.fun, abs=2e-4)


def test_slope_interval_matches_a_brute_force_profile(quad_like):
    _, like = quad_like
    linear = sl.fit(like, "linear")
    iv = sl.parameter_interval(like, linear, 1, 0.95)

    def profile(b):
        return -optimize.minimize_scalar(
            lambda a: -like.at(a + b * like.t), bounds=(2, 6), method="bounded"
        ).fun

    for end in (iv.low, iv.high):
        assert linear.loglik - profile(end) == pytest.approx(0.5 * stats.chi2.ppf(0.95, 1), abs=1e-3)


def test_aicc_and_nested_p_values():
    assert sl.aicc(-10.0, 3, 20) == pytest.approx(20 + 6 + 24 / 16)
    assert sl.aicc(-10.0, 3, 4) == np.inf
    fits = {
        law: sl.Fit(law, (0.0,) * sl.N_PARAMS[law], ll, 0)
        for law, ll in (("constant", -12.0), ("linear", -10.0), ("power", -8.0))
    }
    assert fs.nested_p_value(fits, "linear") == pytest.approx(stats.chi2.sf(4.0, 1))
    assert fs.nested_p_value(fits, "power") == pytest.approx(0.5 * stats.chi2.sf(4.0, 1))  # a boundary
    assert np.isnan(fs.nested_p_value(fits, "constant")) and np.isnan(fs.nested_p_value(fits, "log"))


def test_width_law_recovers_the_exponent():
    cells = simulate(400, seed=7, n_delta=7)
    like = fs.joint_likelihood(cells, sorted(cells))
    law = fit_width_law(cells, like.saturated, 0.95, 1.0)
    assert law.mu_low < 0.25 < law.mu_high and law.mu_high - law.mu_low < 0.15
    assert law.width(1000, 250) == pytest.approx(power_width(1000), rel=0.1)
    assert law.dof == 3 and 0.01 < law.p_value  # the truth is a width law


# ---------------------------------------------------------------------------------------- coverage


COVERAGE_D = np.array([100, 400, 1600, 6400, 25600, 102400], dtype=float)


def _synthetic_like(rng, center, trials=30):
    """Cells of a realistic second pass (docs/finite_size.md, (F12)): five δ at the truth ± 0.75 and
    1.5 widths, 30 trials each, width (d/100)^(−0.2)."""
    cells = {}
    for d in COVERAGE_D.astype(int):
        m, w = center(d), (d / 100) ** -0.2
        delta = np.round(m + w * np.array([-1.5, -0.75, 0.0, 0.75, 1.5]), 2)
        n = np.full(5, trials)
        cells[d] = fs.Cells(delta, rng.binomial(n, logistic(delta, m, w)), n)
    return fs.joint_likelihood(cells, sorted(cells))


@pytest.mark.slow
def test_profile_interval_of_the_limit_covers_the_truth_and_pure_growth_is_not_identified():
    """The log law's δ∞ profile interval (F5) alone, a truth inside its family: three decades of d
    (100 … 10⁵), a log law with δ∞ = 9.5, 120 replicates: the interval closes in more than half, and
    the closed ones cover 9.5 in 90–99 % (an open side never counts as covering; measured 86 of 90);
    pure growth 0.26 per doubling, 60 replicates: not closed in ≥ 54.  The verdict's own path, on
    truths outside the family and off the crossing, is tested below
    (``test_claim_14_on_random_truths_outside_the_family``)."""
    rng = np.random.default_rng(20261202)
    covered = identified = 0
    for _ in range(120):
        like = _synthetic_like(rng, lambda d: 9.5 - 12.0 / np.log(d))
        iv = sl.limit_interval(like, sl.fit(like, "log"), 0.95, 0.0, 40.0)
        identified += iv.closed
        covered += iv.closed and iv.low <= 9.5 <= iv.high
    assert identified / 120 > 0.5  # three decades identify the log law's limit more often than not
    assert 0.90 <= covered / identified <= 0.99
    not_identified = 0
    for _ in range(60):
        like = _synthetic_like(rng, lambda d: 6.0 + 0.26 * np.log2(d / 100))
        not_identified += not sl.limit_interval(like, sl.fit(like, "log"), 0.95, 0.0, 40.0).closed
    assert not_identified >= 54


# ------------------------------------------------------------------------------- the docs' cells


@pytest.fixture(scope="module")
def docs_analysis():
    rows = read_csv(DOCS_CELLS)
    return {
        sweep: fs.finite_size_analysis([r for r in rows if r["sweep"] == sweep], sweep, n_boot=30, seed=(1,))
        for sweep in dict.fromkeys(r["sweep"] for r in rows)
    }


@pytest.mark.slow
def test_quad_to_d4000_decides_growth_not_the_limit(docs_analysis):
    """Quad/he2, d = 250–4000 (docs/finite_size.md): the slope per doubling agrees with a referee's
    0.10 ± 0.04; a constant is disfavoured (p < 0.05) and no deceleration is detected; the power law's
    δ∞ is not reported as a limit (its profile does not close above); d = 4000's δ₅₀ has the
    asymmetric profile interval [3.59, 4.31]."""
    out = docs_analysis["quad"]
    summary = out["summary"][0]
    assert abs(summary["slope"] - 0.10) < 0.04
    assert summary["slope_low"] < 0.10 < summary["slope_high"] and summary["slope_low"] > 0
    assert summary["constant_p"] < 0.05
    assert summary["curvature_low"] < 0 < summary["curvature_high"]
    assert summary["limit_status"] == "not identified" and out["conditional_limit"] == []
    assert not any(key.startswith("delta_inf") for row in out["laws"] + [summary] for key in row)
    d4000 = next(r for r in out["per_d"] if r["d"] == 4000)
    assert (d4000["delta50_low"], d4000["delta50_high"]) == pytest.approx((3.59, 4.31), abs=0.01)
    assert summary["width_exponent_low"] < 0.28 < summary["width_exponent_high"]


@pytest.mark.slow
def test_gelu_growth_is_measured_and_its_limit_is_not_identified(docs_analysis):
    """GeLU/he2: the default build's cells at d = 250–1000 (10 trials each, the first block of the
    scaling overlay's cells) and the docs' d = 4000 cells (30 each).  The slope per doubling agrees
    with a referee's 0.26 ± 0.03 (over d = 250–4000) within errors, a constant is excluded, and δ∞
    is not identified within the limit laws (no number is then reported)."""
    summary = docs_analysis["gelu"]["summary"][0]
    assert summary["d_used"] == "250,500,1000,4000"
    assert summary["slope_low"] < 0.26 < summary["slope_high"]
    assert abs(summary["slope"] - 0.26) < 2 * np.hypot(
        0.03, (summary["slope_high"] - summary["slope_low"]) / 4
    )
    assert summary["constant_p"] < 1e-4
    assert summary["limit_status"] == "not identified"
    assert docs_analysis["gelu"]["conditional_limit"] == []


@pytest.mark.slow
def test_the_docs_cells_leave_claim_14_undetermined(docs_analysis):
    """On the docs' cells (d = 250–4000) claim 14 reads undetermined (F16), and its row states δ₅₀ at
    d = 4000 with its profile interval against δ_NN(∞) (GeLU 9.52, Quad 6.62)."""
    for model, limit in (("gelu", 9.52), ("quad", 6.62)):
        row = docs_analysis[model]["summary"][0] | {"delta_nn_long_time": limit}
        results = claims.Results(read=lambda name, row=row: [row] if "summary" in name else [], grokking=None)
        claim = claims.claim_limit(results, {"finite_size": 0.5})
        assert claim["verdict"] == claims.UNDETERMINED
        assert f"at d = 4000 δ₅₀ = {claims._fmt(row['delta50_d_max'])}" in claim["measured"]


# ----------------------------------------------------------------------------------- verdict, rows


def _stub_fit(law, loglik, params=(6.0, 0.3, 0.5)):
    return sl.Fit(law, params[: sl.N_PARAMS[law]], loglik, sl.N_PARAMS[law] + 5)


def test_limit_verdict():
    """(F9) on five d (ℓ_sat = 0): identified only when both intervals close, the better limit law
    fits (F9a) and growth in ln d and ln ln d are rejected, and then the union of the intervals;
    otherwise not identified with no number (an open interval, a no-limit law that fits, rising or
    falling, or misfitting limit laws), the check naming why; too few d: not tested."""
    like = SimpleNamespace(t=np.arange(5.0), saturated=0.0)
    closed, wider = sl.Interval(9.0, 8.0, 10.0, 0, 40), sl.Interval(9.5, 8.5, 10.6, 0, 40)
    open_high = sl.Interval(np.inf, 7.3, np.nan, 0, 40)
    fits = {
        "power": _stub_fit("power", -1.0),  # LR 2 on 2 dof: p = 0.37, fits
        "log": _stub_fit("log", -1.5),
        "linear": _stub_fit("linear", -20.0),  # LR 40: rejected
        "loglog": _stub_fit("loglog", -20.0),
    }
    status, low, high, check = fs.limit_verdict({"power": closed, "log": wider}, fits, like, 5, 4)
    assert (status, low, high) == ("identified", 8.0, 10.6) and "no growth" in check
    lnln = fits | {"loglog": _stub_fit("loglog", -1.0)}  # growth in ln ln d fits as well
    falling = fits | {"linear": _stub_fit("linear", -1.0, (6.0, -0.3))}
    misfit = fits | {"power": _stub_fit("power", -30.0), "log": _stub_fit("log", -30.0)}
    for intervals, law_fits, reason in (
        ({"power": closed, "log": open_high}, fits, "does not close"),
        ({"power": closed, "log": wider}, lnln, "growth in ln ln d fits"),
        ({"power": closed, "log": wider}, falling, "growth in ln d fits"),
        ({"power": closed, "log": wider}, misfit, "misfit"),
    ):
        status, low, high, check = fs.limit_verdict(intervals, law_fits, like, 5, 4)
        assert status == "not identified" and np.isnan(low) and np.isnan(high) and reason in check
    assert fs.limit_verdict({"power": closed, "log": closed}, fits, like, 3, 4)[0] == "not tested"


def _verdicts():
    """benchmarks/finite_size_verdicts.py: truths, designs and one replicate on the product's path."""
    spec = importlib.util.spec_from_file_location(
        "finite_size_verdicts", BENCHMARKS / "finite_size_verdicts.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    "truth_class, design, replicates",
    [("limit", "docs", 4), ("growth", "docs", 4), ("limit", "sparse", 3), ("growth", "default", 3)],
)
def test_claim_14_on_random_truths_outside_the_family(truth_class, design, replicates):
    """The seeded subset of benchmarks/finite_size_verdicts.py: random monotone curves with a limit
    and random slow growth without one, on the docs', a sparse and the default design, each replicate
    through ``finite_size_analysis`` → ``claims.claim_limit``: no crash, no wrong claim-14 verdict,
    and the profile interval of δ₅₀ at the largest d (what the claim's row states) covers the truth's
    δ₅₀ there in all but at most one replicate."""
    table = _verdicts().table(truth_class, design, replicates, seed=41)
    assert table["crashes"] == 0 and table["wrong"] == 0, table
    reported, covered = table["at_d_max"]
    assert reported == replicates and covered >= replicates - 1, table


def test_a_limit_the_data_force_is_identified_by_the_laws_and_claim_14_stays_undetermined():
    """The control that the limit laws' checks can pass: a power law that has nearly reached δ∞ =
    9.48 by d = 10⁴ (three decades, 300 trials per cell) is identified within the laws, their
    interval (returned apart, written to no table) covers 9.48, and the claim's text says the laws
    identify it, labelled and with no number; claim 14 still reads undetermined,
    because no finite d exclude a different law beyond them (F16)."""
    ds = 100.0 * 2.0 ** np.arange(0, 11, 2)
    for seed in (1, 2):
        rows = cell_rows(
            simulate(300, seed, center=lambda d: 9.48 - 3.0 * (d / 100) ** -0.4, n_delta=5, span=1.5, ds=ds)
        )
        out = fs.finite_size_analysis(rows, "fast", n_boot=0, diagnostics=False)
        summary, (conditional,) = out["summary"][0], out["conditional_limit"]
        assert summary["limit_status"] == "identified"
        assert conditional["low"] <= 9.48 <= conditional["high"]
        assert not any(key.startswith("delta_inf") for row in out["laws"] + [summary] for key in row)
        row = summary | {"delta_nn_long_time": 9.52}
        results = claims.Results(read=lambda name, row=row: [row] if "summary" in name else [], grokking=None)
        claim = claims.claim_limit(results, {"finite_size": 0.5})
        assert claim["verdict"] == claims.UNDETERMINED
        assert "the power and log laws alone would identify it" in claim["measured"]
        assert f"{conditional['low']:.3g}" not in claim["measured"]


def test_leave_out_z_has_unit_spread():
    """(F8) brute force: over replicates of one truth (a log law), the leave-out z of that law has
    mean ≈ 0 and s.d. ≈ 1, and the predicted error matches the spread of the predictions."""
    rng = np.random.default_rng(3)
    z, pred, err = [], [], []
    for _ in range(60):
        cells = simulate(60, seed=int(rng.integers(1 << 30)), n_delta=6, span=2.0)
        lo = fs.leave_largest_out(cells, sorted(cells), ["linear"])["linear"]
        z.append(lo["loo_z"])
        pred.append(lo["loo_predicted"])
        err.append(lo["loo_predicted_err"])
    # the linear law is close to the log law over 250–4000: z is centred within its spread
    assert 0.7 < np.std(z) < 1.35 and abs(np.mean(z)) < 0.6
    assert 0.7 < np.std(pred) / np.mean(err) < 1.35


@pytest.mark.slow
def test_finite_size_analysis_rows(tmp_path):
    cells = simulate(100, seed=3, n_delta=6)
    rows = []
    for d, c in cells.items():
        for delta, k, n in zip(c.delta, c.successes, c.trials, strict=True):
            rows.append(
                {"sweep": "x", "d": d, "delta": delta, "successes": k, "trials": n + 2, "diverged": 2}
            )
    rows.append({"sweep": "x", "d": 8000, "delta": 9.0, "successes": 0, "trials": 4, "diverged": 0})
    rows.append({"sweep": "x", "d": 8000, "delta": 9.5, "successes": 0, "trials": 4, "censored": 3})
    out = fs.finite_size_analysis(rows, "relu", n_boot=10, seed=(9,))
    per_d = {r["d"]: r for r in out["per_d"]}
    assert (per_d[8000]["censored"], per_d[8000]["censored_cells"], per_d[1000]["censored"]) == (3, 1, 0)
    assert per_d[8000]["status"] == "no successes" and np.isnan(per_d[8000]["delta50"])
    direct = fit_logistic(cells[1000].delta, cells[1000].successes, cells[1000].trials)
    assert per_d[1000]["delta50"] == direct.delta50 and per_d[1000]["width"] == direct.scale  # diverged out
    assert per_d[1000]["delta50_low"] < direct.delta50 < per_d[1000]["delta50_high"]
    laws = {r["law"]: r for r in out["laws"]}
    assert list(laws) == list(fs.LAWS)
    assert all(r["model"] == "relu" and r["d_left_out"] == 4000 for r in out["laws"])  # 8000 unusable
    summary = out["summary"][0]
    assert summary["d_used"] == "250,500,1000,2000,4000" and summary["n_d"] == 5
    assert not any(k.startswith("boot_") for k in summary)  # no δ_NN(∞): no readings to bootstrap
    assert summary["gof_p_loglog"] > 0 and "limit_check" in summary
    assert summary["limit_status"] in ("identified", "not identified")
    assert summary["slope_low"] < summary["slope"] < summary["slope_high"]
    assert len(out["collapse"]) == 5 * 6 and {p["trials"] for p in out["collapse"]} == {100}
    assert [q["width"] for q in out["collapse_quality"]] == ["measured", "power_law"]
    for name, table in out.items():
        write_csv(tmp_path / f"{name}.csv", table)
        assert len(read_csv(tmp_path / f"{name}.csv")) == len(table)
    three = fs.finite_size_analysis([r for r in rows if r["d"] <= 1000], "relu", n_boot=5, seed=(9,))
    assert three["summary"][0]["limit_status"] == "not tested"  # a limit law's leave-out needs 4 d


@pytest.mark.slow
def test_bootstrap_is_generated_under_each_reading_and_seeded():
    """(F10) on a power law that has nearly reached its limit 10 = δ_NN(∞) (200 trials per cell):
    replicates drawn under "δ∞ = δ_NN(∞)" choose a limit law more often than replicates drawn under
    "growth ∝ log d"; the choices of each reading add up to one; the same seed gives the same
    frequencies, another seed others."""
    rows = cell_rows(simulate(200, seed=2, n_delta=5, center=lambda d: 10.0 - 4.0 * (d / 250) ** -0.7))
    a, b, c = (
        fs.finite_size_analysis(rows, "m", n_boot=5, seed=seed, delta_nn=10.0, diagnostics=False)["summary"][
            0
        ]
        for seed in ((3,), (3,), (4,))
    )
    keys = [k for k in a if k.startswith("boot_")]
    assert [a[k] for k in keys] == [b[k] for k in keys]
    assert [a[k] for k in keys] != [c[k] for k in keys]
    for reading in ("limit", "growth"):
        assert sum(a[f"boot_{reading}_{law}"] for law in fs.ASYMPTOTIC) == pytest.approx(1.0)
    assert a["boot_limit_limit"] > a["boot_growth_limit"]


@pytest.mark.slow
def test_entry_point_prints_and_writes_the_tables(tmp_path, capsys):
    """The command line on the docs' cells: the limit's two readings in words (undetermined whatever
    the law (F16); the limit laws' status labelled), no rejected constant's level in the law table,
    and ``--delta-nn`` giving its sweep the bootstrap (F10) of ``--bootstrap`` replicates."""
    argv = [str(DOCS_CELLS), "--bootstrap", "4", "--delta-nn", "quad=6.62", "--out", str(tmp_path)]
    assert fs.main(argv) == 0
    text = capsys.readouterr().out
    assert "model quad" in text and "slope per doubling" in text
    assert "not determined by d <= 4000 whatever the law" in text
    assert "under the power and log laws only: not identified, no number" in text
    assert not (tmp_path / "finite_size_conditional_limit.csv").exists()  # the interval is written nowhere
    summary = {r["model"]: r for r in read_csv(tmp_path / "finite_size_summary.csv")}
    assert list(summary) == ["quad", "gelu", "gelu_bump"]
    assert summary["quad"]["boot_limit_kept"] + summary["quad"]["boot_growth_kept"] > 0
    unset = summary["gelu"].get("boot_limit_kept")  # no δ_NN(∞) given: no readings to bootstrap
    assert not isinstance(unset, float) or np.isnan(unset)
    laws = read_csv(tmp_path / "finite_size_laws.csv")
    gelu_constant = next(r for r in laws if r["model"] == "gelu" and r["law"] == "constant")
    assert np.isnan(gelu_constant["level"]) and "delta_inf" not in gelu_constant  # rejected, p < 1e-4


def test_entry_point_rejects_a_delta_nn_without_its_sweep(capsys):
    with pytest.raises(SystemExit):
        fs.main([str(DOCS_CELLS), "--delta-nn", "6.62"])
    assert "--delta-nn takes SWEEP=VALUE, got '6.62'" in capsys.readouterr().err


@pytest.mark.slow
def test_decision_designs_separate_more_with_more_d_and_price_the_new_cells():
    """(F13): on a log law whose limit is δ_NN(∞) = 10, the separations grow with every doubling
    added; the price is called with exactly the design's new cells and the memory with each of them
    (the largest reported); a design decides only with 80 % power (σ ≥ 2.84, not the Asimov 2) under
    both readings and every width exponent given, and wider transitions (smaller μ) have less power:
    with a constant width no design decides; at μ = 0.25 the cheapest deciding design is chosen by its
    price."""
    cells = simulate(60, seed=5, n_delta=6)
    ds = sorted(cells)
    like = fs.joint_likelihood(cells, ds)
    law_fits = fs.fit_laws(like, fs.LAWS)
    priced = []

    def price(listed):
        priced.append(listed)
        return float(sum(d * trials for d, _, trials in listed))

    widths = {
        "mu_hat": (0.25, power_width),
        "mu_low": (0.0, lambda d: power_width(4000)),  # a constant width from the largest d on
    }
    rows = fs.decision_designs(cells, ds, like, law_fits, 10.0, widths, price, memory=lambda d, x: d / 1000)
    assert len(rows) == fs.DECIDE_DOUBLINGS * len(fs.DECIDE_TRIALS) == len(priced)
    for trials in fs.DECIDE_TRIALS:
        growth = [r["sigma_growth"] for r in rows if r["trials"] == trials]
        assert all(b >= a - 1e-6 for a, b in zip(growth, growth[1:], strict=False))
    first = rows[0]
    assert first["d_new"] == "8000" and first["cells"] == 5 and len(priced[0]) == 5
    assert {d for d, _, _ in priced[0]} == {8000} and first["core_hours"] == 5 * 8000 * first["trials"]
    assert rows[-1]["mem_mb"] == 4000 * 2**fs.DECIDE_DOUBLINGS / 1000 and np.isnan(rows[0]["power_mu_high"])
    for r in rows:
        assert r["power"] == min(r["power_mu_hat"], r["power_mu_low"]) <= r["power_mu_hat"]
        assert r["power_mu_low"] <= r["power_mu_hat"] + 1e-9  # wider transitions: less power
        assert r["decides"] == (r["power"] >= 0.8)
        assert fs.power(min(r["sigma_limit"], r["sigma_growth"])) >= r["power"] - 1e-12
    assert fs.power(2.0) == pytest.approx(0.5) and fs.power(2.0 + 0.8416) == pytest.approx(0.8, abs=1e-4)
    assert fs.cheapest_decision(rows) is None  # a constant width decides nowhere up to d = 256 000
    rows = fs.decision_designs(cells, ds, like, law_fits, 10.0, {"mu_hat": widths["mu_hat"]}, price)
    best = fs.cheapest_decision(rows)
    deciding = [r for r in rows if r["decides"]]
    assert best is not None and best["core_hours"] == min(r["core_hours"] for r in deciding)
    assert fs.decision_designs(cells, ds, like, law_fits, np.nan, widths) == []  # no theory value


def test_sweep_core_hours_prices_each_cell_at_its_grown_budget():
    from featlearn.pipeline import resources, settings

    cells = [(500, 6.0, 30), (4000, 7.0, 30)]
    expected = resources.gd_cell_seconds(500, 6.0, "float32", 4000, 30) + resources.gd_cell_seconds(
        4000, 7.0, "float32", 16000, 30
    )
    assert resources.sweep_core_hours(cells, "float32", 4000, 1000) == pytest.approx(expected / 3600)
    assert settings.scaled_steps(4000, 1500, 1000) == 6000 and settings.scaled_steps(4000, 1500, None) == 4000


# ---------------------------------------------------------------------------------------- collapse


def test_deviance_is_twice_the_log_likelihood_ratio():
    rng = np.random.default_rng(0)
    n = rng.integers(1, 30, 40)
    k = rng.binomial(n, 0.4)
    k[:3] = 0
    k[3:6] = n[3:6]
    x = rng.normal(0, 2, 40)
    p = 1 / (1 + np.exp(-x))
    brute = 2 * (stats.binom.logpmf(k, n, k / n) - stats.binom.logpmf(k, n, p))
    assert fs.binomial_deviance(x, k, n) == pytest.approx(brute, rel=1e-9, abs=1e-9)


def test_collapse_of_one_scaling_form_has_the_binomial_deviance():
    cells = simulate(200, seed=7)
    fits = fs.per_d_fits(cells)
    like = fs.joint_likelihood(cells, sorted(cells))
    law = fit_width_law(cells, like.saturated, 0.95, 1.0)
    points = fs.collapse_points(cells, fits, lambda d: law.width(d, 250))
    assert len(points) == 5 * 9
    quality = {q["width"]: q for q in fs.collapse_quality(points, law)}
    assert quality["measured"]["dof"] == 45 - 10 and quality["power_law"]["dof"] == 45 - 7
    for q in quality.values():
        assert 0.5 < q["deviance_per_dof"] < 1.6  # χ²_dof/dof has s.d. ≈ 0.24
    per_d = 0.0
    for c, f in zip(cells.values(), fits.values(), strict=True):
        p = logistic(c.delta, f.delta50, f.scale)
        saturated = stats.binom.logpmf(c.successes, c.trials, c.successes / c.trials)
        per_d += np.sum(2 * (saturated - stats.binom.logpmf(c.successes, c.trials, p)))
    assert quality["measured"]["deviance"] == pytest.approx(per_d, rel=1e-6)


def test_collapse_detects_a_different_shape_at_one_d_and_a_width_that_does_not_scale():
    plateau = {1000: lambda x: 0.5 / (1 + np.exp(-4 * (x + 1.5))) + 0.5 / (1 + np.exp(-4 * (x - 1.5)))}
    cells = simulate(200, seed=7, shape=plateau)
    assert fs.collapse_quality(fs.collapse_points(cells, fs.per_d_fits(cells)))[0]["deviance_per_dof"] > 3.0
    cells = simulate(200, seed=7, width=lambda d: power_width(d) * (3.0 if d == 1000 else 1.0))
    like = fs.joint_likelihood(cells, sorted(cells))
    law = fit_width_law(cells, like.saturated, 0.95, 1.0)
    points = fs.collapse_points(cells, fs.per_d_fits(cells), lambda d: law.width(d, 250))
    quality = {q["width"]: q for q in fs.collapse_quality(points, law)}
    assert quality["measured"]["deviance_per_dof"] < 1.6  # every d is still a logistic
    assert quality["power_law"]["deviance_per_dof"] > 5.0  # but one width law does not describe them
    assert law.p_value < 1e-6  # and the likelihood ratio against free widths says so


# ------------------------------------------------------------------------------------- second pass


def test_crossing_estimates_measure_where_run_and_extrapolate_beyond():
    cells = simulate(2000, seed=3)
    run = {d: c for d, c in cells.items() if d <= 2000}
    out = fs.crossing_estimates(run, [1000, 4000, 16000])
    centre, width, source = out[1000]
    assert source == "measured" and centre == pytest.approx(log_center(1000), abs=0.05)
    assert width == pytest.approx(power_width(1000), rel=0.1)
    for d in (4000, 16000):
        centre, width, source = out[d]
        assert source == "extrapolated"
        assert centre == pytest.approx(log_center(d), abs=0.15)
        assert width == pytest.approx(power_width(d), rel=0.2)
    one = fs.crossing_estimates({250: cells[250]}, [250, 500])
    assert one[250][2] == "measured" and one[500][2] == "none" and np.isnan(one[500][0])


def test_refined_grid_keeps_what_ran_and_adds_the_crossing_points():
    grid = fs.refined_grid([5.0, 6.0, 8.0], 6.83, 0.4, [-1.5, -0.5, 0.5, 1.5], 0.05)
    assert grid == [5.0, 6.0, 6.25, 6.65, 7.05, 7.45, 8.0]
    assert fs.refined_grid([5.0, 7.0], np.nan, np.nan, [-1.0, 1.0], 0.05) == [5.0, 7.0]
    assert fs.refined_grid([], 0.2, 1.0, [-1.0, 0.0], 0.05) == [0.2]  # no δ <= 0
