"""The early-stopping certificate (docs/model.md, eqs. (M11)–(M13)) on functions whose minimum is
known in closed form: R(θ) = Σ_i [a_i(θ_i − c_i)²/2 + β(θ_i − c_i)³/3], minimum θ = c when every
a_i > 0 (Hessian diag(a_i + 2β(θ_i − c_i)), Lipschitz constant 2β), a saddle when some a_i < 0."""

import numpy as np
import pytest

from featlearn.gd.certificate import MinimumCertificate


def _problem(a, beta, c):
    a, c = np.asarray(a, float), np.asarray(c, float)

    def gradient(theta):
        u = theta[0] - c
        return (a * u + beta * u**2)[None, :]

    def bottom(theta, start):
        diag = a + 2 * beta * (theta[0] - c)
        i = int(np.argmin(diag))
        return float(diag[i]), np.eye(a.size)[i]

    return gradient, bottom


def _alignment(theta):
    return abs(theta[0, 0]) / np.linalg.norm(theta)


def _descend(certificate, gradient, theta, lr, steps):
    """GD θ ← θ − η∇R, asking the certificate at every step; (step, θ) where it certified, else
    (None, final θ)."""
    for t in range(steps):
        g = gradient(theta)
        if certificate(t, theta, float(np.linalg.norm(g)), _alignment(theta)):
            return t, theta
        theta = theta - lr * g
    return None, theta


@pytest.mark.parametrize("beta", [0.0, 0.5, 2.0])
def test_certified_point_is_within_the_radius_of_the_true_minimum(beta):
    rng = np.random.default_rng(1)
    d = 50
    a = rng.uniform(0.05, 1.0, d)
    c = rng.standard_normal(d)
    c[0] = 0.05  # the minimum's alignment with e_1 is small: a failed trial
    gradient, bottom = _problem(a, beta, c)
    # above the minimum: with β > 0 the Hessian shrinks on the way in, so the Lipschitz estimate matters
    theta = (c + rng.uniform(0.0, 0.02, d))[None, :]
    cert = MinimumCertificate(bottom, lr=0.5, check_grad=1e-2, check_every=20, safety=4, rho_tol=0.01)
    step, theta = _descend(cert, gradient, theta, 0.5, 20000)
    assert step is not None
    g = np.linalg.norm(gradient(theta))
    lam = bottom(theta, None)[0]
    assert np.linalg.norm(theta[0] - c) <= 2 * g / lam  # (M11)'s radius holds at the true minimum
    assert abs(_alignment(theta) - _alignment(c[None, :])) <= cert.rho_tol  # (M12)
    assert cert.checks <= 10  # checks are scheduled from the convergence rate, not every 20 steps


def test_a_saddle_is_never_certified():
    d = 20
    a = np.full(d, 0.5)
    a[3] = -0.01  # one negative curvature: GD leaves along e_4
    c = np.random.default_rng(3).standard_normal(d)
    c[0] = 0.05
    gradient, bottom = _problem(a, 0.0, c)
    theta = c[None, :] + 1e-6
    cert = MinimumCertificate(bottom, lr=0.5, check_grad=1e-2, check_every=20)
    step, _ = _descend(cert, gradient, theta, 0.5, 500)
    assert step is None and cert.checks == 0  # the gradient grows: no Lanczos run is expected to pass


def test_no_certificate_near_the_success_level_and_one_for_an_aligned_minimum():
    """Between the two levels nothing but the floor certifies; a minimum aligned well above the
    success level (a success below the freezing level) is certified like a failed one."""
    gradient, bottom = _problem(np.ones(2), 0.0, np.array([1.0, 1.0]))
    theta = np.array([[1.0, 1.0]])  # ρ = 0.71, at the minimum
    cert = MinimumCertificate(bottom, lr=0.5, rho_low=0.7, rho_high=0.72)
    assert cert._tolerance(_alignment(theta)) == 0.0
    assert not cert(0, theta, 1e-9, _alignment(theta)) and cert.checks == 0
    assert cert._tolerance(0.695) == pytest.approx(0.0025) and cert._tolerance(0.3) == cert.rho_tol
    rng = np.random.default_rng(5)
    c = 0.05 * rng.standard_normal(20)
    c[0] = 1.0  # ρ ≈ 0.99 at the minimum
    gradient, bottom = _problem(rng.uniform(0.05, 1.0, 20), 0.0, c)
    cert = MinimumCertificate(bottom, lr=0.5, check_grad=1e-2, check_every=20)
    step, theta = _descend(cert, gradient, (c + rng.uniform(0, 0.02, 20))[None, :], 0.5, 20000)
    assert step is not None and cert.certified_by == "kantorovich" and _alignment(theta) > 0.5


def test_a_nearly_flat_minimum_stops_at_the_gradient_floor():
    """λ_min = 1e-6: the Kantorovich radius 2‖g‖/λ stays large, so only (M14) stops the run, once
    ‖g‖ ≤ grad_floor (and never before)."""
    d = 10
    a = np.full(d, 0.5)
    a[2] = 1e-6
    c = np.random.default_rng(4).standard_normal(d)
    c[0] = 0.05
    gradient, bottom = _problem(a, 0.0, c)
    theta = c[None, :] + 1e-3
    cert = MinimumCertificate(bottom, lr=0.5, check_grad=1e-2, check_every=20, grad_floor=1e-6)
    step, theta = _descend(cert, gradient, theta, 0.5, 5000)
    assert step is not None and cert.certified_by == "floor"
    assert np.linalg.norm(gradient(theta)) <= 1e-6
