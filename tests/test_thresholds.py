import numpy as np
from scipy import optimize

from featlearn.analysis.thresholds import fit_logistic, logistic


def test_logistic_fit_recovers_known_parameters():
    rng = np.random.default_rng(3)
    delta = np.linspace(2, 8, 13)
    n = np.full(delta.size, 300)
    estimates = []
    for _ in range(40):
        k = rng.binomial(n, logistic(delta, 5.0, 0.6))
        fit = fit_logistic(delta, k, n)
        assert fit.status == "ok"
        estimates.append((fit.delta50, fit.delta50_err, fit.scale))
    est = np.array(estimates)
    # unbiased within Monte Carlo error, and the Fisher error matches the spread across replicates
    assert abs(est[:, 0].mean() - 5.0) < 3 * est[:, 1].mean() / np.sqrt(len(est))
    assert 0.7 < est[:, 0].std() / est[:, 1].mean() < 1.4
    assert abs(est[:, 2].mean() - 0.6) < 0.03


def penalised_loglik(beta, delta, k, n):
    """ℓ(β) + ½ log det I(β), written out directly (independent of the fit's Newton code)."""
    eta = beta[0] + beta[1] * delta
    p = 1 / (1 + np.exp(-eta))
    loglik = np.sum(k * np.log(p) + (n - k) * np.log1p(-p))
    w = n * p * (1 - p)
    info = np.array([[w.sum(), (w * delta).sum()], [(w * delta).sum(), (w * delta**2).sum()]])
    return loglik + 0.5 * np.log(np.linalg.det(info))


def test_separated_data_use_firth_and_match_direct_maximisation():
    delta = np.array([3.0, 4.0, 5.0, 6.0, 7.0])
    k = np.array([0, 0, 4, 8, 8])
    n = np.full(5, 8)
    fit = fit_logistic(delta, k, n)
    assert fit.status == "firth"
    best = optimize.minimize(
        lambda b: -penalised_loglik(b, delta, k, n),
        x0=[-10.0, 2.0],
        method="Nelder-Mead",
        options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20000},
    )
    assert abs(fit.delta50 - (-best.x[0] / best.x[1])) < 1e-5
    assert abs(fit.scale - 1 / best.x[1]) < 1e-5
    assert 4.5 < fit.delta50 < 5.5 and fit.delta50_err > 0


def test_complete_separation_puts_the_threshold_in_the_gap():
    fit = fit_logistic([3, 4, 5, 6], [0, 0, 8, 8], [8, 8, 8, 8])
    assert fit.status == "firth" and abs(fit.delta50 - 4.5) < 1e-8 and fit.delta50_err > 0


def test_degenerate_data_are_reported_not_fitted():
    assert fit_logistic([3, 4], [0, 0], [5, 5]).status == "no successes"
    assert fit_logistic([3, 4], [5, 5], [5, 5]).status == "all successes"
    assert np.isnan(fit_logistic([3, 8], [2, 0], [2, 2]).delta50)


def test_censored_trials_are_counted_and_bracket_the_threshold():
    """A failed trial stopped by the budget (no certificate, no convergence; in a period-2 cycle or
    not) is censored; the cycles are counted apart; the fit that counts censored trials as successes
    moves δ₅₀ down, the plain fit counts them as failures."""
    import numpy as np

    from featlearn.analysis.sweeps import cell_summary, threshold_rows

    settings = {"activation": "quad", "link": "he2", "m": 1, "init": "random"}
    rows = []
    for delta, ok, reasons in (
        (3.0, [0, 0, 0, 0], ["certified_minimum"] * 3 + ["budget"]),
        (4.0, [1, 0, 0, 0], ["frozen", "budget", "cycle", "certified_minimum"]),
        (5.0, [1, 1, 1, 0], ["frozen"] * 3 + ["certified_minimum"]),
        (6.0, [1, 1, 1, 1], ["frozen"] * 2 + ["cycle", "budget"]),
    ):
        success = np.array(ok, bool)
        cell = {
            "d": 100,
            "delta": delta,
            "final_rho": np.where(success, 0.9, 0.1),
            "success": success,
            "diverged": np.zeros(4, bool),
            "stop_reason": np.array(reasons),
            "escape_step": np.where(success, 10, -1),
        }
        rows.append({**cell_summary("quad", settings, cell), "delta": delta})
    assert [r["censored"] for r in rows] == [1, 2, 0, 0]  # a success that ran the budget is not censored
    assert [r["cycling"] for r in rows] == [0, 1, 0, 1]  # a cycle at any ρ
    (fit,) = threshold_rows(rows)
    assert fit["censored"] == 3 and fit["delta50_censored_as_success"] < fit["delta50"]
