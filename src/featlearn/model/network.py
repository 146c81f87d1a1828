"""Two-layer network, empirical risk, gradient and Hessian-vector product (NumPy reference):
docs/model.md, eqs. (M2), (M3), (M6), (M7).

f(x) = (1/m) Σ_j a_j σ(θ_jᵀx + b_j) with Θ = (θ_1, …, θ_m) ∈ R^{m×d} trained; a and b fixed or
trained (``train``, docs/model.md, eq. (M6a)).
Empirical risk R̂(Θ) = (1/2n) Σ_i (y_i − f(x_i))², or (1/n) Σ_i ρ(f(x_i) − y_i) for another loss ρ
of the catalogue (``loss``, a ``featlearn.model.loss.Loss``: Huber's or a config loss; docs/model.md,
eq. (M3a)), ψ = ρ′; the formulas below are the square loss's, and with another loss e_i becomes
ψ(e_i) and the first term of (H) gains the factor ρ″(e_i) ((M3a); 1[|e_i| ≤ κ_H] for Huber's).
With z_ij = θ_jᵀx_i + b_j, residual e_i = f(x_i) − y_i and c_j = a_j/m:

  ∇_{θ_j} R̂ = (1/n) Σ_i e_i c_j σ′(z_ij) x_i                                         (G)
  ∂R̂/∂a_j = (1/n) Σ_i e_i σ(z_ij)/m,   ∂R̂/∂b_j = (1/n) Σ_i e_i c_j σ′(z_ij)          (Ga), (Gb)
  ∇²_{θ_j θ_l} R̂ = (1/n) Σ_i [c_j c_l σ′(z_ij)σ′(z_il) + δ_jl e_i c_j σ″(z_ij)] x_i x_iᵀ   (H)

For m = 1, a = 1: H = (1/n) Xᵀ diag(w) X with w_i = σ′(z_i)² + (σ(z_i) − y_i)σ″(z_i).
The code labels (G) and (H) are (M6) and (M7) of docs/model.md.
These plain implementations are the references the numba kernels are tested against.
"""

import numpy as np

from featlearn.model.activations import evaluate
from featlearn.model.layers import trained_layers
from featlearn.model.loss import SQUARE, loss_parts


def preactivations(x, theta, b):
    """Z = XΘᵀ + b, shape (n, m)."""
    return np.asarray(x, dtype=np.float64) @ theta.T + b


def predict(x, theta, a, b, activation):
    """f(x_i) for every row of ``x``."""
    s, _, _ = evaluate(activation, preactivations(x, theta, b))
    return s @ a / theta.shape[0]


def risk(x, y, theta, a, b, activation, loss=SQUARE):
    """R̂(Θ) = (1/n) Σ_i ρ(f(x_i) − y_i) (the square loss's (1/2n) Σ_i (y_i − f(x_i))² by default)."""
    return float(np.mean(loss_parts(predict(x, theta, a, b, activation) - y, loss)[0]))


def gradient(x, y, theta, a, b, activation, loss=SQUARE):
    """∇R̂(Θ) by (G), shape (m, d)."""
    x = np.asarray(x, dtype=np.float64)
    s, ds, _ = evaluate(activation, preactivations(x, theta, b))
    c = a / theta.shape[0]
    psi = loss_parts(s @ c - y, loss)[1]
    return (psi[:, None] * ds * c).T @ x / x.shape[0]


def gradient_second_layer(x, y, theta, a, b, activation, loss=SQUARE):
    """(∂R̂/∂a, ∂R̂/∂b) by (Ga), (Gb), each of shape (m,)."""
    s, ds, _ = evaluate(activation, preactivations(x, theta, b))
    m = theta.shape[0]
    psi = loss_parts(s @ (a / m) - y, loss)[1]
    return psi @ s / (m * psi.size), psi @ ds * (a / m) / psi.size


def hessian_at(x, y, theta, a, b, activation, loss=SQUARE):
    """V ↦ ∇²R̂(Θ)·V by (H) at a fixed Θ, without forming the md×md matrix (V and the result have
    shape (m, d)).  The per-sample factors c_jσ′(z_ij) and e_i c_jσ″(z_ij) are computed once, so each
    product is two passes over X, U = XVᵀ and Xᵀ(coefficients), in X's own dtype (float32 X is not
    copied to float64 for every product)."""
    s, ds, d2s = evaluate(activation, preactivations(x, theta, b))
    c = a / theta.shape[0]
    _, psi, curvature = loss_parts(s @ c - y, loss)
    first = ds * c  # c_j σ′(z_ij)
    second = psi[:, None] * c * d2s  # ψ(e_i) c_j σ″(z_ij)
    n = x.shape[0]

    def product(v):
        u = x @ v.T.astype(x.dtype)  # u_ij = x_iᵀ v_j
        coeff = first * (curvature * (u * first).sum(axis=1))[:, None] + second * u
        return np.asarray(coeff.T.astype(x.dtype) @ x, dtype=np.float64) / n

    return product


def pack_point(theta, a, b, train):
    """The point of every trained parameter: Θ itself with a fixed second layer, else the flat vector
    (Θ row by row, then a, then b, each of length m where ``train`` names it)."""
    layers = trained_layers(train)
    if not layers:
        return theta
    given = {"a": a, "b": b}
    return np.concatenate([theta.ravel(), *(given[name] for name in layers)])


def unpack_point(point, shape, train, a, b):
    """(Θ, a, b) of a point of :func:`pack_point` with Θ of ``shape``; a and b where not trained are
    the given ones."""
    layers = trained_layers(train)
    if not layers:
        return point, a, b
    m, d = shape
    given = dict(zip(layers, point[m * d :].reshape(len(layers), m), strict=True))
    return point[: m * d].reshape(m, d), given.get("a", a), given.get("b", b)


def joint_hessian_at(x, y, theta, a, b, activation, train, loss=SQUARE):
    """v ↦ ∇²R̂·v in every trained parameter (``train``: Θ and a and/or b), v and the result flat in
    the layout of :func:`pack_point` (docs/model.md (M7a)).

    With e_i = f(x_i) − y_i, ∇²R̂ = (1/n) Σ_i [ρ″(e_i) ∇f_i ∇f_iᵀ + ψ(e_i) ∇²f_i], where
    ∂f_i/∂θ_j = c_jσ′_ij x_i, ∂f_i/∂a_j = σ_ij/m, ∂f_i/∂b_j = c_jσ′_ij and the nonzero second
    derivatives are those of one neuron: ∂²f_i/∂θ_j² = c_jσ″_ij x_i x_iᵀ, ∂²f_i/∂θ_j∂a_j = σ′_ij x_i/m,
    ∂²f_i/∂θ_j∂b_j = c_jσ″_ij x_i, ∂²f_i/∂a_j∂b_j = σ′_ij/m, ∂²f_i/∂b_j² = c_jσ″_ij.  The Θ block is
    :func:`hessian_at`'s product; the rows and columns of a and b add two passes over X."""
    m, d = theta.shape
    theta_block = hessian_at(x, y, theta, a, b, activation, loss)
    s, ds, d2s = evaluate(activation, preactivations(x, theta, b))
    c = a / m
    _, psi, curvature = loss_parts(s @ c - y, loss)
    layers = trained_layers(train)
    n = x.shape[0]

    def product(v):
        v_theta, va, vb = unpack_point(v, (m, d), train, np.zeros(m), np.zeros(m))
        u = np.asarray(x @ v_theta.T.astype(x.dtype), dtype=np.float64)  # u_ij = x_iᵀ v_j
        jv_theta = (u * ds * c).sum(axis=1)
        jv_layers = s @ va / m + (ds * c) @ vb  # ∇f_i · (v_a, v_b)
        jv = jv_theta + jv_layers
        # Θ rows: the Θ block, plus the columns of a and b
        coeff = ds * c * (curvature * jv_layers)[:, None] + psi[:, None] * (ds * va / m + d2s * c * vb)
        rows = [
            (theta_block(v_theta) + np.asarray(coeff.T.astype(x.dtype) @ x, dtype=np.float64) / n).ravel()
        ]
        if "a" in layers:
            rows.append(((curvature * jv) @ s / m + psi @ (ds * (u + vb)) / m) / n)
        if "b" in layers:
            rows.append(((curvature * jv) @ (ds * c) + psi @ (d2s * c * (u + vb) + ds * va / m)) / n)
        return np.concatenate(rows)

    return product


def hessian_vector_product(x, y, theta, a, b, activation, v, loss=SQUARE):
    """∇²R̂(Θ)·V by (H) (:func:`hessian_at` for one V)."""
    return hessian_at(x, y, theta, a, b, activation, loss)(v)


def hessian_dense(x, y, theta, a, b, activation, loss=SQUARE):
    """The md×md Hessian (H), blocks ordered (θ_1, …, θ_m); for small problems and tests."""
    x = np.asarray(x, dtype=np.float64)
    n, d = x.shape
    m = theta.shape[0]
    s, ds, d2s = evaluate(activation, preactivations(x, theta, b))
    c = a / m
    _, psi, curvature = loss_parts(s @ c - y, loss)
    hess = np.empty((m * d, m * d))
    for j in range(m):
        for k in range(m):
            w = curvature * c[j] * c[k] * ds[:, j] * ds[:, k]
            if j == k:
                w = w + psi * c[j] * d2s[:, j]
            hess[j * d : (j + 1) * d, k * d : (k + 1) * d] = (x * w[:, None]).T @ x / n
    return hess
