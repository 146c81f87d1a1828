import numpy as np

from featlearn.theory.outlier import OutlierSolver


def test_constant_weights_give_the_marchenko_pastur_edge_and_no_outlier(rng):
    n, gamma, c = 5000, 0.3, 2.0
    g2 = rng.standard_normal(n) ** 2
    res = OutlierSolver(g2, np.full(n, c), gamma).solve()
    assert abs(res.bulk_edge - c * (1 - np.sqrt(gamma)) ** 2) < 1e-10
    assert not res.exists and np.isnan(res.outlier)


def test_weights_blind_to_the_hard_direction_have_no_outlier(rng):
    """g² replaced by an independent mean-one variable: (O) and (B) force 1/m = 0, no outlier."""
    n = 200_000
    g2 = rng.standard_normal(n) ** 2
    w = 1 - 1.5 * np.tanh(rng.standard_normal(n) ** 2 / 2)
    assert not OutlierSolver(g2, w, 0.25).solve().exists


def test_planted_outlier_matches_dense_eigendecomposition(rng):
    """H = (1/n) Σ w_i x_i x_iᵀ with w depending on g = x₁: solver vs dense eigh at d = 800."""
    d, n = 800, 3200
    x = rng.standard_normal((n, d))
    g = x[:, 0]
    w = 1 - 1.5 * np.tanh(g**2 / 2) + 0.3 * rng.standard_normal(n)
    vals, vecs = np.linalg.eigh((x * w[:, None]).T @ x / n)
    res = OutlierSolver(g**2, w, (d - 1) / n).solve()
    assert res.exists
    assert abs(res.outlier - vals[0]) < 0.02
    assert abs(res.overlap2 - vecs[0, 0] ** 2) < 0.05
    assert res.outlier < res.bulk_edge


def test_margin_is_negative_exactly_when_a_negative_outlier_exists(rng):
    """Planted laws w = c − s·tanh(g²/2): the margin's sign against the solved outlier."""
    n = 20_000
    g = rng.standard_normal(n)
    for c in (0.2, 0.6, 1.0, 1.5):
        for s in (0.3, 1.0, 1.5):
            solver = OutlierSolver(g**2, c - s * np.tanh(g**2 / 2), 0.25)
            res = solver.solve()
            assert (solver.margin() < 0) == (res.exists and res.outlier < 0)


def test_weights_reweight_the_law(rng):
    """Integer weights give the same answer as repeating the samples."""
    g2 = rng.standard_normal(300) ** 2
    w = 1 - 1.5 * np.tanh(g2 / 2)
    reps = rng.integers(1, 4, g2.size)
    a = OutlierSolver(g2, w, 0.3, weights=reps).solve()
    b = OutlierSolver(np.repeat(g2, reps), np.repeat(w, reps), 0.3).solve()
    assert np.allclose(
        [a.bulk_edge, a.outlier, a.overlap2], [b.bulk_edge, b.outlier, b.overlap2], rtol=1e-9, equal_nan=True
    )
