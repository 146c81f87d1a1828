"""Fig 3, measured (hessian.landscape): the risk on a plane against the empirical risk itself, and
the curvature along the outlier direction against the Hessian's bottom eigenvalue."""

import numpy as np
import pytest
from conftest import GELU_PLATEAU

from featlearn.hessian import landscape
from featlearn.model.activations import evaluate


@pytest.fixture(scope="module")
def cell():
    s = GELU_PLATEAU
    return s, landscape.landscape_cell(s, 12.0, log=lambda *a: None, grid_points=9)


def test_plane_risk_is_the_empirical_risk_at_each_grid_point():
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((200, 10)), rng.standard_normal(200)
    basis = np.linalg.qr(rng.standard_normal((10, 2)))[0].T
    alphas, betas = [0.3, -1.0], [0.5, 2.0]
    surface = landscape.plane_risk(x, y, basis, alphas, betas, "gelu", 1.5, 0.2)
    for i, alpha in enumerate(alphas):
        for j, beta in enumerate(betas):
            theta = alpha * basis[0] + beta * basis[1]
            f = 1.5 * evaluate("gelu", x @ theta + 0.2)[0]
            assert surface[i, j] == pytest.approx(0.5 * np.mean((y - f) ** 2), rel=1e-12)


def test_the_curvature_along_the_outlier_direction_is_the_bottom_eigenvalue(cell):
    _, out = cell
    lam = out["lambda_min"]
    assert out["outlier_curvature"] == pytest.approx(lam, abs=1e-4 + 1e-3 * abs(lam))
    assert 0.0 <= out["outlier_overlap2"] <= 1.0


def test_the_grid_covers_the_plateau_and_the_path(cell):
    _, out = cell
    for plane in ("hard", "outlier"):
        alphas, betas = out[f"{plane}_alphas"], out[f"{plane}_betas"]
        assert alphas[0] < out["plateau_norm"] < alphas[-1] and betas[0] < 0 < betas[-1]
        assert np.all(np.abs(out[f"{plane}_path_b"]) <= betas[-1])
        assert out[f"{plane}_risk"].shape == (alphas.size, betas.size)
