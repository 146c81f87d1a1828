"""Spectrum of the empirical-risk Hessian: bottom eigenpairs, hard-direction overlaps, bulk edge
(docs/outlier.md, eq. (O1) and "The simulated spectra").

H = ∇²R̂(Θ) is the md×md matrix of eq. (H) in ``network`` (docs/model.md, eq. (M7)); for m = 1, a = 1 it is
H = (1/n) Xᵀ diag(w) X with w_i = σ′(z_i)² + (σ(z_i) − y_i)σ″(z_i).

The hard subspace is span{u_l ⊗ e_j} for the hard teacher directions u_l (columns of U ∈ R^{d×h})
and the neurons j = 1..m.  For an eigenvector v = (v_1, …, v_m) its overlap² with the hard
subspace is Σ_j ‖Uᵀv_j‖².  The "bulk" is the spectrum of H_⊥ = P⊥HP⊥ on the orthogonal
complement (P⊥ = I − UUᵀ on each neuron); its smallest eigenvalue is the empirical bulk edge.  An
outlier of H is an eigenvalue below the bulk edge.  H₁₁ = θ*ᵀHθ* (m = 1) is the hard diagonal
entry; for m > 1 the table reports the smallest eigenvalue of the hm×hm hard block.

Eigenpairs: dense ``eigh`` of the explicit matrix when md ≤ ``dense_max``, else Lanczos
(``eigsh``, which='SA') on a matrix-free LinearOperator.  For H_⊥ the hard directions are lifted
out of the way by adding ``shift``·P_hard, so no spurious zero eigenvalues appear.
"""

from dataclasses import dataclass

import numpy as np
from scipy import linalg
from scipy.sparse.linalg import LinearOperator, eigsh

from featlearn.model import network
from featlearn.model.hessian_workspace import DENSE_MAX
from featlearn.model.layers import trained_layers, trains_second_layer
from featlearn.model.loss import SQUARE


@dataclass
class Spectrum:
    """Bottom of the spectrum of H at one point."""

    eigenvalues: np.ndarray  # the k smallest eigenvalues of H, ascending
    hard_overlap2: np.ndarray  # overlap² of each eigenvector with the hard subspace
    bulk_edge: float  # smallest eigenvalue of H_⊥
    h11: float  # smallest eigenvalue of the hard block (H₁₁ for m = 1, h = 1)


def _lift(u, m):
    """The md×hm orthonormal basis {u_l ⊗ e_j} of the hard subspace (neuron-major layout)."""
    d, h = u.shape
    basis = np.zeros((m * d, m * h))
    for j in range(m):
        basis[j * d : (j + 1) * d, j * h : (j + 1) * h] = u
    return basis


def hessian_matrix(x, y, theta, a, b, activation):
    """The explicit md×md Hessian (eq. H)."""
    return network.hessian_dense(x, y, theta, a, b, activation)


def hessian_operator(x, y, theta, a, b, activation, loss=SQUARE, train=("theta",)):
    """Matrix-free H as a LinearOperator on vectors of length md (neuron-major); of the loss ``loss``
    (a ``featlearn.model.loss.Loss``; the square loss by default).  With a trained second layer
    (``train`` with a and/or b) H is the Hessian in every trained parameter, on vectors of length
    md + m per trained layer (``network.joint_hessian_at``)."""
    m, d = theta.shape
    if trains_second_layer(train):
        size = m * (d + len(trained_layers(train)))
        product = network.joint_hessian_at(x, y, theta, a, b, activation, train, loss)
        return LinearOperator((size, size), matvec=product, dtype=np.float64)
    product = network.hessian_at(x, y, theta, a, b, activation, loss)

    def matvec(v):
        return product(v.reshape(m, d)).ravel()

    return LinearOperator((m * d, m * d), matvec=matvec, dtype=np.float64)


def _bottom(op_or_matrix, k, tol, v0=None):
    """The ``k`` smallest eigenpairs, ascending: dense ``eigh``, or Lanczos started from ``v0`` (a
    warm start), else from the fixed vector (1, …, 1)/√size, so that the result is the same in
    every run (ARPACK's default start is random)."""
    if isinstance(op_or_matrix, np.ndarray):
        return linalg.eigh(op_or_matrix, subset_by_index=[0, k - 1], driver="evr")
    size = op_or_matrix.shape[0]
    start = np.ones(size) / np.sqrt(size) if v0 is None else v0
    vals, vecs = eigsh(op_or_matrix, k=k, which="SA", tol=tol, v0=start)
    order = np.argsort(vals)
    return vals[order], vecs[:, order]


def spectrum_of(hmat, basis, k=3, tol=1e-8):
    """Bottom ``k`` eigenpairs, hard overlaps², bulk edge and hard-block minimum of a symmetric H.

    ``hmat`` is an explicit matrix (dense eigh) or a LinearOperator (Lanczos); ``basis`` is the
    orthonormal basis of the hard subspace (columns).
    """
    if isinstance(hmat, np.ndarray):
        shift = 2 * np.abs(hmat).sum(axis=1).max() + 1.0  # above the whole spectrum (Gershgorin)
        h_basis = hmat @ basis
        hard_block = basis.T @ h_basis
        # P H P + shift·UUᵀ with P = I − UUᵀ, by low-rank updates (O(d²) instead of two d³ products)
        perp = (
            hmat
            - basis @ h_basis.T
            - h_basis @ basis.T
            + basis @ (hard_block + shift * np.eye(basis.shape[1])) @ basis.T
        )
    else:
        top = float(eigsh(hmat, k=1, which="LM", tol=1e-3)[0][0])
        shift = 4 * abs(top) + 1.0  # |λ|max bounds the spectrum

        def perp_matvec(v):
            hard_part = basis @ (basis.T @ v)
            hv = hmat @ (v - hard_part)
            return hv - basis @ (basis.T @ hv) + shift * hard_part

        perp = LinearOperator(hmat.shape, matvec=perp_matvec, dtype=np.float64)
        hard_block = basis.T @ np.column_stack([hmat @ basis[:, i] for i in range(basis.shape[1])])
    vals, vecs = _bottom(hmat, k, tol)
    overlap2 = ((basis.T @ vecs) ** 2).sum(axis=0)
    bulk = float(_bottom(perp, 1, tol)[0][0])
    return Spectrum(vals, overlap2, bulk, float(np.linalg.eigvalsh(0.5 * (hard_block + hard_block.T))[0]))


def spectrum(x, y, theta, a, b, activation, hard, k=3, dense_max=DENSE_MAX, tol=1e-8):
    """:func:`spectrum_of` the Hessian at Θ; ``hard`` is U ∈ R^{d×h} (orthonormal hard directions)."""
    m, d = theta.shape
    x = np.asarray(x, dtype=np.float64)
    if m * d <= dense_max:
        hmat = hessian_matrix(x, y, theta, a, b, activation)
    else:
        hmat = hessian_operator(x, y, theta, a, b, activation)
    return spectrum_of(hmat, _lift(hard, m), k, tol)


def bottom_eigenpair(x, y, theta, a, b, activation, v0=None, tol=1e-8, loss=SQUARE, train=("theta",)):
    """(λ_min, v) of the Hessian at Θ (in every trained parameter, ``train``) by Lanczos on the
    matrix-free operator (one HVP per iteration), started from ``v0`` (a previous eigenvector) or the
    fixed start of :func:`_bottom`."""
    vals, vecs = _bottom(hessian_operator(x, y, theta, a, b, activation, loss, train), 1, tol, v0)
    return float(vals[0]), vecs[:, 0]


def smallest_eigenvalue(x, y, theta, a, b, activation, tol=1e-8):
    """λ_min of the Hessian at Θ (:func:`bottom_eigenpair`)."""
    return bottom_eigenpair(x, y, theta, a, b, activation, tol=tol)[0]


def complement_eigenvalues(hmat, basis):
    """All eigenvalues of H restricted to the orthogonal complement of span(basis) (dense)."""
    size, h = basis.shape
    q, _ = np.linalg.qr(np.hstack([basis, np.eye(size)]))
    complement = q[:, h:size]
    return np.linalg.eigvalsh(complement.T @ hmat @ complement)


def bulk_eigenvalues(x, y, theta, a, b, activation, hard):
    """The whole bulk spectrum (H on the complement of the hard subspace); dense, small md only."""
    hmat = hessian_matrix(np.asarray(x, dtype=np.float64), y, theta, a, b, activation)
    return complement_eigenvalues(hmat, _lift(hard, theta.shape[0]))
