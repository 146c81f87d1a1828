import numpy as np

from featlearn.thresholds import fit_logistic, logistic


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


def test_separated_and_degenerate_data_are_reported_not_fitted():
    sep = fit_logistic([3, 4, 5, 6], [0, 0, 8, 8], [8, 8, 8, 8])
    assert sep.status == "separated" and sep.delta50 == 4.5 and sep.delta50_err == 0.5
    assert fit_logistic([3, 4], [0, 0], [5, 5]).status == "no successes"
    assert fit_logistic([3, 4], [5, 5], [5, 5]).status == "all successes"
    assert np.isnan(fit_logistic([3, 8], [0, 1], [2, 2]).delta50)
