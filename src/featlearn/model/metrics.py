"""Alignment of the learned first-layer weights with the teacher subspace (docs/model.md, eq. (M8)).

With θ̂_j = θ_j/‖θ_j‖ and Θ* ∈ R^{d×k} orthonormal:

* per-neuron alignment ρ_j = ‖Θ*ᵀθ̂_j‖ (for m = 1 this is ρ = ‖P_{Θ*}θ‖/‖θ‖);
* network alignment (M8): ρ = ‖Θ*ᵀθ̂_1‖ for m = 1, and ρ = σ_max(Θ*ᵀQ) for m > 1, with
  Q ∈ R^{d×m} an orthonormal basis of span(θ_1, …, θ_m) (QR of Θᵀ): the cosine of the smallest
  principal angle between the learned and the teacher subspaces.  It lies in [0, 1], is 1 when
  span(Θ) contains a teacher direction, and for a uniformly random span E[ρ²] ≤ mk/d (ρ² is at
  most ‖Θ*ᵀQ‖_F², whose mean is mk/d).  The basis is orthonormalised, not just normalised: with
  normalised but non-orthogonal rows σ_max(Θ*ᵀΘ̂ᵀ) reaches √m when all neurons coincide with θ*,
  which is no cosine and could not be compared with the ρ levels of docs/model.md.
* direction overlaps o_l = ‖P_{span Θ} θ*_l‖ = ‖Qᵀθ*_l‖, l = 1..k: whether teacher direction l
  is learned by the network (it lies in the span of the neurons), whichever combination of
  neurons carries it;
* neuron overlaps max_j |θ*_lᵀθ̂_j|: whether a single neuron carries direction l (equal to o_l for
  m = 1; smaller once the neurons mix the directions, e.g. θ_1,2 ∝ θ*_1 ± θ*_2).
"""

import numpy as np


def overlap_matrix(theta, theta_star):
    """Θ*ᵀΘ̂ᵀ, shape (k, m), with the rows of Θ normalised."""
    norms = np.linalg.norm(theta, axis=1)
    return (theta_star.T @ theta.T) / np.where(norms > 0, norms, np.inf)


def alignment(theta, theta_star):
    """Network alignment ρ = σ_max(Θ*ᵀQ), Q an orthonormal basis of the span of the neurons."""
    if theta.shape[0] == 1:
        return float(np.linalg.norm(overlap_matrix(theta, theta_star)))
    return float(np.linalg.norm(theta_star.T @ span_basis(theta), 2))


def neuron_alignments(theta, theta_star):
    """ρ_j = ‖Θ*ᵀθ̂_j‖ for each neuron j."""
    return np.linalg.norm(overlap_matrix(theta, theta_star), axis=0)


def span_basis(theta):
    """Q ∈ R^{d×m}: an orthonormal basis of span(θ_1, …, θ_m) (QR of Θᵀ)."""
    q, _ = np.linalg.qr(theta.T)
    return q


def direction_overlaps(theta, theta_star):
    """o_l = ‖P_{span Θ} θ*_l‖ for each teacher direction l."""
    if theta.shape[0] == 1:
        return np.abs(overlap_matrix(theta, theta_star))[:, 0]
    return np.linalg.norm(theta_star.T @ span_basis(theta), axis=1)


def neuron_overlaps(theta, theta_star):
    """max_j |θ*_lᵀθ̂_j| for each teacher direction l."""
    return np.abs(overlap_matrix(theta, theta_star)).max(axis=1)
