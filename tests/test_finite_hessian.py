"""The finite Hessian built from a path set (theory.finite_hessian; docs/escape.md (E24)): its bottom
eigenpairs against dense eigh of the explicit matrix, its n → ∞ limit against the outlier equations (O3)–(O5)
on a bounded law, and the aligned scan's first close on planted weights."""

import numpy as np
import pytest

from featlearn.theory import finite_hessian
from featlearn.theory.finite_hessian import weighted_gram_bottom
from featlearn.theory.outlier import OutlierSolver


def _explicit(x, w):
    return x.T @ (w[:, None] * x) / x.shape[0]


def test_bottom_eigenpairs_of_the_weighted_gram_are_those_of_dense_eigh(rng):
    x = rng.standard_normal((300, 40))
    w = rng.standard_normal(300)
    lam, vecs = weighted_gram_bottom(x, w, 3)
    exact, exact_vecs = np.linalg.eigh(_explicit(x, w))
    np.testing.assert_allclose(lam, exact[:3], rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(np.abs(np.sum(vecs * exact_vecs[:, :3], axis=0)), 1.0, atol=1e-6)


def test_the_finite_hessian_has_the_outlier_of_the_outlier_equations(rng):
    """At n = 4000, d = 400 (γ ≈ 0.1) with weights bounded below and anticorrelated with g², the
    smallest eigenvalue and its overlap² with e₁ are those of (O4), (O5), and the next one sits at the
    bulk edge (O3): the equations are this matrix's n → ∞ limit."""
    n, d = 4000, 400
    g2 = rng.standard_normal(n) ** 2
    w = np.clip(1.0 - 0.6 * g2, -1.5, None)
    theory = OutlierSolver(g2, w, (d - 1) / n).solve()
    lam, vecs = weighted_gram_bottom(finite_hessian.surrogate_rows(g2, d, rng), w, 2)
    assert theory.exists and theory.outlier < theory.bulk_edge < 0
    assert lam[0] == pytest.approx(theory.outlier, abs=0.03)
    assert vecs[0, 0] ** 2 == pytest.approx(theory.overlap2, abs=0.04)
    assert lam[1] == pytest.approx(theory.bulk_edge, abs=0.02)


def test_the_rows_carry_the_hard_column_and_fresh_gaussians(rng):
    g2 = np.array([0.25, 4.0, 1.0])
    x = finite_hessian.surrogate_rows(g2, 5, rng)
    np.testing.assert_array_equal(x[:, 0], [0.5, 2.0, 1.0])
    assert x.shape == (3, 5) and np.all(np.isfinite(x[:, 1:]))


def test_the_scan_reads_the_aligned_eigenvalue_and_stops_at_the_first_close(rng):
    n, d = 2000, 100
    g2 = rng.standard_normal(n) ** 2
    x = finite_hessian.surrogate_rows(g2, d, rng)
    aligned = np.clip(1.0 - 0.6 * g2, -1.5, None)  # an aligned negative outlier
    positive = np.ones(n)  # no negative eigenvalue at all
    weights = [aligned, 0.5 * aligned, positive, aligned, aligned]
    hits, lam = finite_hessian.aligned_scan(x, weights, 0.1, 3)
    np.testing.assert_array_equal(hits, [True, True, False, False, False])  # step 3 is not scanned
    for t in (0, 1):
        values, vectors = np.linalg.eigh(_explicit(x, weights[t]))
        ok = (values[:3] < 0) & (vectors[0, :3] ** 2 >= 0.1)
        assert lam[t] == pytest.approx(values[:3][ok].min(), rel=1e-9)
    assert np.all(np.isnan(lam[2:]))
    late, _ = finite_hessian.aligned_scan(x, [positive, aligned, aligned], 0.1, 3)
    np.testing.assert_array_equal(late, [False, True, True])  # a window may open after t = 0
