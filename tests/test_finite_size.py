import numpy as np
import pytest
from scipy import stats

from featlearn.analysis import finite_size as fs
from featlearn.analysis.thresholds import fit_logistic, logistic
from featlearn.io.results import read_csv, write_csv

D = np.array([250.0, 500.0, 1000.0, 2000.0, 4000.0])


def log_center(d):
    return 10.0 - 3.0 / np.log(d)


def power_width(d):
    return 2.0 * np.asarray(d, dtype=float) ** -0.25


def simulate(trials, seed, center=log_center, width=power_width, shape=None, n_delta=9, span=2.5):
    """{d: Cells} with success probability P((δ − center(d))/width(d)); ``shape`` maps d to P (default
    the logistic)."""
    rng = np.random.default_rng(seed)
    cells = {}
    for d in D.astype(int):
        m, s = center(d), width(d)
        x = np.linspace(-span, span, n_delta)
        p = (shape or {}).get(d, lambda x: 1 / (1 + np.exp(-x)))(x)
        n = np.full(n_delta, trials)
        cells[d] = fs.Cells(m + s * x, rng.binomial(n, p), n)
    return cells


@pytest.mark.parametrize(
    "law,truth,exact",
    [("log", (10.0, 3.0), 10 - 3 / np.log(D)), ("power", (10.0, 3.0, 0.5), 10 - 3 * D**-0.5)],
)
def test_exact_law_is_recovered_fits_best_and_is_chosen(law, truth, exact):
    err = np.full(D.size, 1e-4)
    fits = {name: fs.fit_law(name, D, exact, err) for name in fs.LAWS}
    got = fits[law]
    assert got.status == "ok"
    assert got.params == pytest.approx(truth, abs=1e-6)
    assert got.chi2 < 1e-6 and got.dof == D.size - len(truth)
    assert all(f.chi2 >= got.chi2 for f in fits.values())  # no other law fits better
    assert all(f.chi2 > 10 * f.dof for name, f in fits.items() if name != law)  # and they clearly fail
    leave = fs.leave_largest_out(D, exact, err)
    assert fs.choose_law(leave) == law
    best = next(lo for lo in leave if lo.law == law)
    assert best.d_left_out == D.max() and best.measured == exact[-1]
    assert abs(best.predicted - exact[-1]) < best.predicted_err and abs(best.error_sigma) < 1e-3


def test_constant_law_is_the_inverse_variance_weighted_mean():
    rng = np.random.default_rng(11)
    err = rng.uniform(0.05, 0.5, D.size)
    y = 7.0 + err * rng.standard_normal(D.size)
    w = 1 / err**2
    fit = fs.fit_law("constant", D, y, err)
    mean = np.sum(w * y) / np.sum(w)
    assert fit.status == "ok" and fit.dof == D.size - 1
    assert fit.delta_inf == pytest.approx(mean, rel=1e-12)
    assert fit.delta_inf_err == pytest.approx(1 / np.sqrt(np.sum(w)), rel=1e-12)
    assert fit.chi2 == pytest.approx(np.sum(w * (y - mean) ** 2), rel=1e-10)
    assert np.isnan(fit.c) and np.isnan(fit.nu)


def test_too_few_points_give_nan_and_a_status():
    for law, n in (("constant", 1), ("log", 2), ("power", 3)):
        fit = fs.fit_law(law, D[:n], log_center(D[:n]), np.full(n, 0.01))
        assert fit.status.startswith("too few points")
        assert np.isnan([fit.delta_inf, fit.delta_inf_err, fit.c, fit.nu, fit.chi2]).all()
    # a non-finite point does not count
    y = log_center(D[:4]).copy()
    y[0] = np.nan
    assert fs.fit_law("power", D[:4], y, np.full(4, 0.01)).status.startswith("too few points")
    # with four d the power law cannot be fitted on the three left in: never chosen, even on its own data
    exact = 10 - 3 * D[:4] ** -0.5
    leave = {lo.law: lo for lo in fs.leave_largest_out(D[:4], exact, np.full(4, 1e-4))}
    assert leave["power"].status.startswith("too few points") and np.isnan(leave["power"].error_sigma)
    assert fs.choose_law(leave.values()) in ("constant", "log")


def test_ties_go_to_fewer_parameters():
    leave = [fs.LeaveOut(law, 4000, 1.0, 0.1, 1.1, 0.1, 0.5, "ok") for law in ("power", "log", "constant")]
    assert fs.choose_law(leave) == "constant"
    leave[2].error_sigma = np.nan
    assert fs.choose_law(leave) == "log"
    assert fs.choose_law([fs.LeaveOut("log", 1, *[np.nan] * 5, "too few")]) is None


@pytest.mark.parametrize("law,truth", [("log", (10.0, 3.0)), ("power", (10.0, 3.0, 0.5))])
def test_leave_out_z_has_unit_spread_over_noisy_replicates(law, truth):
    """Brute force: the s.e. of (F4a)–(F4b) against the spread over replicates of Gaussian noise."""
    rng = np.random.default_rng(5)
    err = np.full(D.size, 0.002)
    exact = fs.law_value(law, D, truth)
    z, pred, pred_err = [], [], []
    for _ in range(300):
        lo = next(x for x in fs.leave_largest_out(D, exact + err * rng.standard_normal(D.size), err, [law]))
        z.append(lo.error_sigma)
        pred.append(lo.predicted)
        pred_err.append(lo.predicted_err)
    assert 0.85 < np.std(z) < 1.15 and abs(np.mean(z)) < 0.2
    assert 0.85 < np.std(pred) / np.mean(pred_err) < 1.15


def test_bootstrap_ci_covers_the_truth_and_shrinks_with_trials():
    widths = []
    for trials in (50, 800):
        cells = simulate(trials, seed=5, n_delta=6)
        ci = fs.bootstrap_delta_inf(cells, ["log"], n_boot=40, seed=(1, 2))["log"]
        assert ci.n_kept == 40 and ci.n_failed == 0
        assert ci.low < 10.0 < ci.high
        widths.append(ci.high - ci.low)
    assert widths[1] < 0.6 * widths[0]  # √16 = 4 expected; 0.6 leaves room for B = 40


def test_bootstrap_is_seeded_and_counts_failed_replicates():
    cells = simulate(3, seed=2, n_delta=4, span=1.5)  # 3 trials at 4 δ: often 0 or 12 successes
    fits = fs.per_d_fits(cells)
    assert all(f.status in ("ok", "firth") for f in fits.values())
    a = fs.bootstrap_delta_inf(cells, n_boot=30, seed=(3,), fits=fits)
    b = fs.bootstrap_delta_inf(cells, n_boot=30, seed=(3,), fits=fits)
    c = fs.bootstrap_delta_inf(cells, n_boot=30, seed=(4,), fits=fits)
    for law in fs.LAWS:
        assert a[law].n_kept + a[law].n_failed == 30
        assert (a[law].low, a[law].high) == (b[law].low, b[law].high)
    assert a["log"].n_failed > 0
    assert (a["log"].low, a["log"].high) != (c["log"].low, c["log"].high)


def test_bootstrap_resamples_the_fitted_curve_not_the_observed_fractions():
    """Separated cells (0/10, 0/10, 10/10, 10/10) at every d: resampling k/n would repeat the data in
    every replicate (zero spread); the fitted (Firth) logistic gives the tails room to move."""
    x = np.array([-1.5, -0.5, 0.5, 1.5])
    cells = {int(d): fs.Cells(log_center(d) + 0.3 * x, np.array([0, 0, 10, 10]), np.full(4, 10)) for d in D}
    fits = fs.per_d_fits(cells)
    assert {f.status for f in fits.values()} == {"firth"}
    ci = fs.bootstrap_delta_inf(cells, ["log"], n_boot=20, seed=(1,), fits=fits)["log"]
    point = fs.fit_law("log", *fs.usable_thresholds(fits)).delta_inf
    assert ci.n_kept == 20 and ci.std > 0 and ci.low < point < ci.high


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
    d, y, err = fs.usable_thresholds(fits)
    width = fs.fit_width_law(d, [fits[k].scale for k in d], [fits[k].scale_err for k in d])
    assert width.mu == pytest.approx(0.25, abs=4 * width.mu_err)
    points = fs.collapse_points(cells, fits, width)
    assert len(points) == 5 * 9
    quality = {q["width"]: q for q in fs.collapse_quality(points, width)}
    assert quality["measured"]["dof"] == 45 - 10 and quality["power_law"]["dof"] == 45 - 7
    for q in quality.values():
        assert 0.5 < q["deviance_per_dof"] < 1.6  # χ²_dof/dof has s.d. ≈ 0.24
    # with per-d maximum-likelihood fits the measured-width collapse is the sum of the per-d deviances
    per_d = 0.0
    for c, f in zip(cells.values(), fits.values(), strict=True):
        p = logistic(c.delta, f.delta50, f.scale)
        saturated = stats.binom.logpmf(c.successes, c.trials, c.successes / c.trials)
        per_d += np.sum(2 * (saturated - stats.binom.logpmf(c.successes, c.trials, p)))
    assert quality["measured"]["deviance"] == pytest.approx(per_d, rel=1e-6)


def test_collapse_detects_a_different_shape_at_one_d():
    plateau = {1000: lambda x: 0.5 / (1 + np.exp(-4 * (x + 1.5))) + 0.5 / (1 + np.exp(-4 * (x - 1.5)))}
    good = fs.collapse_quality(fs.collapse_points(simulate(200, 7), fs.per_d_fits(simulate(200, 7))))
    cells = simulate(200, seed=7, shape=plateau)
    bad = fs.collapse_quality(fs.collapse_points(cells, fs.per_d_fits(cells)))
    assert good[0]["deviance_per_dof"] < 1.6
    assert bad[0]["deviance_per_dof"] > 3.0


def test_width_law_collapse_detects_a_width_that_does_not_scale():
    def width(d):
        return power_width(d) * (3.0 if d == 1000 else 1.0)

    cells = simulate(200, seed=7, width=width)
    fits = fs.per_d_fits(cells)
    d = np.array(sorted(fits), dtype=float)
    wfit = fs.fit_width_law(d, [fits[k].scale for k in fits], [fits[k].scale_err for k in fits])
    quality = {q["width"]: q for q in fs.collapse_quality(fs.collapse_points(cells, fits, wfit), wfit)}
    assert quality["measured"]["deviance_per_dof"] < 1.6  # every d is still a logistic
    assert quality["power_law"]["deviance_per_dof"] > 5.0  # but one width law does not describe them


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
    out = fs.finite_size_analysis(rows, "relu", n_boot=20, seed=(9,))
    per_d = {r["d"]: r for r in out["per_d"]}
    assert (per_d[8000]["censored"], per_d[8000]["censored_cells"], per_d[1000]["censored"]) == (3, 1, 0)
    assert per_d[8000]["status"] == "no successes" and np.isnan(per_d[8000]["delta50"])
    direct = fit_logistic(cells[1000].delta, cells[1000].successes, cells[1000].trials)
    assert per_d[1000]["delta50"] == direct.delta50 and per_d[1000]["width"] == direct.scale  # diverged out
    laws = {r["law"]: r for r in out["laws"]}
    assert list(laws) == list(fs.LAWS) and sum(r["chosen"] for r in out["laws"]) == 1
    assert all(r["model"] == "relu" and r["d_left_out"] == 4000 for r in out["laws"])  # 8000 unusable
    assert laws["log"]["delta_inf_low"] < laws["log"]["delta_inf"] < laws["log"]["delta_inf_high"]
    assert laws["log"]["boot_kept"] + laws["log"]["boot_failed"] == 20
    assert len(out["collapse"]) == 5 * 6 and {p["trials"] for p in out["collapse"]} == {100}
    assert [q["width"] for q in out["collapse_quality"]] == ["measured", "power_law"]
    for name, table in out.items():
        write_csv(tmp_path / f"{name}.csv", table)
        assert len(read_csv(tmp_path / f"{name}.csv")) == len(table)


def test_law_curves_pass_through_the_fit_and_widen_away_from_the_data():
    """The curve of each fitted law is the law at its fitted parameters; its band (F4a) is narrowest
    inside the measured range and grows beyond it; a law that cannot be fitted has no rows."""
    d = np.array([250.0, 500.0, 1000.0])
    y = 10 - 3 / np.log(d) + np.array([0.05, -0.04, 0.02])
    err = np.full(3, 0.1)
    rows = fs.law_curves("m", d, y, err)
    laws = {r["law"] for r in rows}
    assert laws == {"constant", "log"}  # three points: the power law (3 parameters) is not fitted
    fit = fs.fit_law("log", d, y, err)
    log_rows = [r for r in rows if r["law"] == "log"]
    grid = np.array([r["d"] for r in log_rows])
    np.testing.assert_allclose([r["value"] for r in log_rows], fs.law_value("log", grid, fit.params))
    errs = np.array([r["err"] for r in log_rows])
    assert errs[-1] > errs[np.argmin(np.abs(grid - 500))]
    assert fs.law_curves("m", np.array([]), np.array([]), np.array([])) == []


def test_crossing_estimates_measure_where_run_and_extrapolate_beyond():
    """(F8a): at d with data the logistic fit's δ₅₀ and width; at a d never run the chosen law and
    the width law, close to the truth for many trials; nothing without enough d to choose a law."""
    cells = simulate(2000, seed=3)
    run = {d: c for d, c in cells.items() if d <= 2000}
    out = fs.crossing_estimates(run, [1000, 4000, 16000])
    centre, width, source = out[1000]
    assert source == "measured" and centre == pytest.approx(log_center(1000), abs=0.05)
    assert width == pytest.approx(power_width(1000), rel=0.1)
    for d in (4000, 16000):
        centre, width, source = out[d]
        assert source == "extrapolated"
        assert centre == pytest.approx(log_center(d), abs=0.15) and width == pytest.approx(
            power_width(d), rel=0.2
        )
    one = fs.crossing_estimates({250: cells[250]}, [250, 500])
    assert one[250][2] == "measured" and one[500][2] == "none" and np.isnan(one[500][0])


def test_refined_grid_keeps_what_ran_and_adds_the_crossing_points():
    grid = fs.refined_grid([5.0, 6.0, 8.0], 6.83, 0.4, [-1.5, -0.5, 0.5, 1.5], 0.05)
    assert grid == [5.0, 6.0, 6.25, 6.65, 7.05, 7.45, 8.0]
    assert fs.refined_grid([5.0, 7.0], np.nan, np.nan, [-1.0, 1.0], 0.05) == [5.0, 7.0]
    assert fs.refined_grid([], 0.2, 1.0, [-1.0, 0.0], 0.05) == [0.2]  # no δ <= 0
