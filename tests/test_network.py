import numpy as np
import pytest
from conftest import ALL_ACTIVATIONS, small_problem

from featlearn.model import network
from featlearn.model.loss import SQUARE, named_loss


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("name", ALL_ACTIVATIONS)
def test_gradient_matches_finite_differences(rng, name, m):
    x, y, theta, a, b = small_problem(rng, m=m)
    grad = network.gradient(x, y, theta, a, b, name)
    h = 1e-6
    fd = np.empty_like(theta)
    for idx in np.ndindex(theta.shape):
        e = np.zeros_like(theta)
        e[idx] = h
        fd[idx] = (network.risk(x, y, theta + e, a, b, name) - network.risk(x, y, theta - e, a, b, name)) / (
            2 * h
        )
    np.testing.assert_allclose(grad, fd, rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("name", ["gelu", "quad", "tanh"])
def test_huber_loss_gradients_and_hessian_match_finite_differences(rng, name, m):
    """(M3a): with κ_H = 0.3 (a share of the residuals beyond it) ∇R̂, ∂R̂/∂a, ∂R̂/∂b against central
    differences of the Huber risk, and H·V against differences of the gradient."""
    x, y, theta, a, b = small_problem(rng, m=m)
    huber = named_loss("huber", 0.3)
    e = network.predict(x, theta, a, b, name) - y
    assert 0.2 < np.mean(np.abs(e) > huber.kappa) < 0.98
    h = 1e-6
    fd = np.empty_like(theta)
    for idx in np.ndindex(theta.shape):
        step = np.zeros_like(theta)
        step[idx] = h
        up, down = (network.risk(x, y, theta + sign * step, a, b, name, huber) for sign in (1, -1))
        fd[idx] = (up - down) / (2 * h)
    np.testing.assert_allclose(network.gradient(x, y, theta, a, b, name, huber), fd, rtol=1e-5, atol=1e-8)
    grad_a, grad_b = network.gradient_second_layer(x, y, theta, a, b, name, huber)
    step = np.zeros(m)
    step[0] = h
    fd_a = network.risk(x, y, theta, a + step, b, name, huber) - network.risk(
        x, y, theta, a - step, b, name, huber
    )
    fd_b = network.risk(x, y, theta, a, b + step, name, huber) - network.risk(
        x, y, theta, a, b - step, name, huber
    )
    np.testing.assert_allclose([grad_a[0], grad_b[0]], [fd_a / (2 * h), fd_b / (2 * h)], rtol=1e-5, atol=1e-8)
    v = rng.standard_normal(theta.shape)
    hv = network.hessian_vector_product(x, y, theta, a, b, name, v, huber)
    up, down = (network.gradient(x, y, theta + sign * 1e-6 * v, a, b, name, huber) for sign in (1, -1))
    np.testing.assert_allclose(hv, (up - down) / 2e-6, rtol=1e-4, atol=1e-7)
    dense = network.hessian_dense(x, y, theta, a, b, name, huber)
    np.testing.assert_allclose(dense @ v.ravel(), hv.ravel(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("name", ALL_ACTIVATIONS)
def test_second_layer_gradient_matches_finite_differences(rng, name, m):
    """(Ga), (Gb): ∂R̂/∂a and ∂R̂/∂b against central differences of R̂."""
    x, y, theta, a, b = small_problem(rng, m=m)
    grad_a, grad_b = network.gradient_second_layer(x, y, theta, a, b, name)
    h = 1e-6
    for j in range(m):
        e = np.zeros(m)
        e[j] = h
        fd_a = (network.risk(x, y, theta, a + e, b, name) - network.risk(x, y, theta, a - e, b, name)) / (
            2 * h
        )
        fd_b = (network.risk(x, y, theta, a, b + e, name) - network.risk(x, y, theta, a, b - e, name)) / (
            2 * h
        )
        np.testing.assert_allclose([grad_a[j], grad_b[j]], [fd_a, fd_b], rtol=1e-5, atol=1e-8)


@pytest.mark.parametrize("m", [1, 3])
@pytest.mark.parametrize("name", ALL_ACTIVATIONS)
def test_hessian_vector_product_matches_finite_differences(rng, name, m):
    x, y, theta, a, b = small_problem(rng, m=m)
    v = rng.standard_normal(theta.shape)
    h = 1e-6
    fd = (
        network.gradient(x, y, theta + h * v, a, b, name) - network.gradient(x, y, theta - h * v, a, b, name)
    ) / (2 * h)
    hv = network.hessian_vector_product(x, y, theta, a, b, name, v)
    scale = np.abs(hv).max()
    # relu: the Hessian is the a.e. one (σ″ = 0); finite differences agree away from kinks.
    np.testing.assert_allclose(hv, fd, rtol=1e-5, atol=1e-6 * scale)


@pytest.mark.parametrize("m", [1, 2])
def test_hessian_vector_product_matches_dense_hessian(rng, m):
    x, y, theta, a, b = small_problem(rng, n=80, d=50, m=m)
    hess = network.hessian_dense(x, y, theta, a, b, "gelu")
    np.testing.assert_allclose(hess, hess.T, atol=1e-14)
    v = rng.standard_normal(theta.shape)
    hv = network.hessian_vector_product(x, y, theta, a, b, "gelu", v)
    np.testing.assert_allclose(hv.ravel(), hess @ v.ravel(), rtol=1e-12, atol=1e-14)


def test_single_neuron_hessian_is_weighted_gram(rng):
    """H = (1/n) Xᵀ diag(w) X, w = σ′² + (σ − y)σ″ (docs/model.md, eq. (M7))."""
    x, y, theta, _, _ = small_problem(rng, n=90, d=7)
    z = x @ theta[0]
    w = (2 * z) ** 2 + (z**2 - y) * 2
    expected = (x * w[:, None]).T @ x / x.shape[0]
    np.testing.assert_allclose(
        network.hessian_dense(x, y, theta, np.ones(1), np.zeros(1), "quad"), expected, rtol=1e-12
    )


def test_a_trained_point_is_theta_then_a_then_b_and_unpacks(rng):
    theta, a, b = rng.standard_normal((2, 3)), np.array([1.0, 2.0]), np.array([3.0, 4.0])
    assert network.pack_point(theta, a, b, ("theta",)) is theta
    point = network.pack_point(theta, a, b, ("theta", "b", "a"))
    np.testing.assert_array_equal(point, [*theta.ravel(), 1.0, 2.0, 3.0, 4.0])
    only_b = network.pack_point(theta, a, b, ("theta", "b"))
    np.testing.assert_array_equal(only_b, [*theta.ravel(), 3.0, 4.0])
    back = network.unpack_point(only_b + 1.0, theta.shape, ("theta", "b"), a, b)
    np.testing.assert_array_equal(back[0], theta + 1.0)
    assert back[1] is a and np.array_equal(back[2], b + 1.0)


def _joint_gradient(x, y, theta, a, b, name, train, huber, point):
    """The gradient in every trained parameter at ``point`` (layout of ``network.pack_point``)."""
    at = network.unpack_point(point, theta.shape, train, a, b)
    grad_a, grad_b = network.gradient_second_layer(x, y, *at, name, huber)
    return network.pack_point(network.gradient(x, y, *at, name, huber), grad_a, grad_b, train)


@pytest.mark.parametrize("train", [("theta", "a"), ("theta", "b"), ("theta", "a", "b")])
@pytest.mark.parametrize("huber", [SQUARE, named_loss("huber", 0.5)])
@pytest.mark.parametrize("name", ["gelu", "quad", "tanh"])
def test_joint_hessian_matches_finite_differences_of_the_joint_gradient(rng, name, huber, train):
    """(M7a): the Hessian in (Θ, a, b) column by column against central differences of the gradient
    (G), (Ga), (Gb); symmetric; its Θ block is (H)."""
    x, y, theta, a, b = small_problem(rng, m=2)
    m, d = theta.shape
    point = network.pack_point(theta, a, b, train)
    product = network.joint_hessian_at(x, y, theta, a, b, name, train, huber)
    columns = np.eye(point.size)
    hess = np.column_stack([product(e) for e in columns])
    h = 1e-6
    fd = np.column_stack(
        [
            _joint_gradient(x, y, theta, a, b, name, train, huber, point + h * e)
            - _joint_gradient(x, y, theta, a, b, name, train, huber, point - h * e)
            for e in columns
        ]
    ) / (2 * h)
    np.testing.assert_allclose(hess, fd, rtol=1e-5, atol=1e-7 * np.abs(hess).max())
    np.testing.assert_allclose(hess, hess.T, atol=1e-13 * np.abs(hess).max())
    dense = network.hessian_dense(x, y, theta, a, b, name, huber)
    np.testing.assert_allclose(hess[: m * d, : m * d], dense, rtol=1e-10, atol=1e-13)


def test_the_reflection_through_the_hard_direction_flips_its_coupling_to_the_layers(rng):
    """docs/dmft.md, "The outlier with a trained layer": x ↦ (I − 2uuᵀ)x leaves restricted GD's path
    (θ ⊥ u, a, b) and y = g² − 1 unchanged and flips g = uᵀx, so the coupling of u to (a, b) in the
    Hessian (M7a) changes sign (its mean is zero) while the hard entry H_uu stays."""
    from featlearn.gd import engine as gd

    n, d = 400, 30
    u = np.eye(d)[:, :1]
    x = rng.standard_normal((n, d))
    y = x[:, 0] ** 2 - 1.0
    mirror = x.copy()
    mirror[:, 0] *= -1.0
    theta0 = rng.standard_normal((1, d)) / np.sqrt(d)
    train = ("theta", "a", "b")
    columns = []
    for data_x in (x, mirror):
        data = {"X": data_x, "y": y, "X_test": data_x[:10], "y_test": y[:10], "theta_star": u}
        net = gd.Network("gelu", theta0, np.ones(1), np.full(1, 0.3))
        traj = gd.run(data, net, gd.Schedule(lr=1.0, steps=20, grid=np.array([20]), restrict=u, train=train))
        product = network.joint_hessian_at(data_x, y, traj.theta, traj.final_a, traj.final_b, "gelu", train)
        columns.append(product(np.concatenate([u[:, 0], np.zeros(2)])))
        assert abs(traj.theta[0, 0]) < 1e-15
    np.testing.assert_allclose(columns[1][d:], -columns[0][d:], rtol=1e-10)
    assert np.abs(columns[0][d:]).max() > 1e-3
    np.testing.assert_allclose(columns[1][0], columns[0][0], rtol=1e-10)
