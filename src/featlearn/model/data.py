"""Gaussian data for the multi-index model (docs/model.md, eq. (M1)).

x_i ~ N(0, I_d), i = 1..n, y_i = h(Θ*ᵀx_i) + noise·ε_i with ε_i ~ N(0, 1) and Θ* ∈ R^{d×k}
orthonormal: the first k canonical vectors (``theta_star="e1"``) or a Haar-random frame
(``theta_star="random"``, drawn from the training stream).
"""

import numpy as np

from featlearn.model.links import get_link


def teacher_frame(d, k, mode, rng):
    """Θ* ∈ R^{d×k} with orthonormal columns."""
    if mode == "e1":
        return np.eye(d, k)
    if mode == "random":
        q, r = np.linalg.qr(rng.standard_normal((d, k)))
        return q * np.sign(np.diag(r))
    raise ValueError(f"unknown theta_star mode {mode!r}; use 'e1' or 'random'")


def sample(rng, n, theta_star, link, noise=0.0, dtype=np.float64):
    """(X, y): X ∈ R^{n×d} Gaussian in ``dtype``, y = h(XΘ*) + noise·ε in float64.

    y is computed from the float64 draw before any cast of X, so float32 runs see the same y.
    """
    d = theta_star.shape[0]
    x = rng.standard_normal((n, d))
    y = get_link(link).h(x @ theta_star)
    if noise > 0:
        y = y + noise * rng.standard_normal(n)
    return np.ascontiguousarray(x, dtype=dtype), y


def trial_data(generators, n, d, n_test, link, theta_star_mode="e1", noise=0.0, dtype=np.float64):
    """Training and test sets of one trial from its seeded generators (see ``seeds``)."""
    k = get_link(link).k
    theta_star = teacher_frame(d, k, theta_star_mode, generators["train"])
    x, y = sample(generators["train"], n, theta_star, link, noise, dtype)
    x_test, y_test = sample(generators["test"], n_test, theta_star, link, noise, dtype)
    return {"X": x, "y": y, "X_test": x_test, "y_test": y_test, "theta_star": theta_star}
