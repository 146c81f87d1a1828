"""Alignment of the learned first-layer weights with the teacher subspace.

With θ̂_j = θ_j/‖θ_j‖ and Θ* ∈ R^{d×k} orthonormal:

* per-neuron alignment ρ_j = ‖Θ*ᵀθ̂_j‖ (for m = 1 this is ρ = ‖P_{Θ*}θ‖/‖θ‖);
* network alignment ρ = σ_max(Θ*ᵀΘ̂ᵀ), the largest singular value of the k×m overlap matrix
  (equal to ρ_1 for m = 1);
* direction overlaps o_l = max_j |θ*_lᵀθ̂_j|, l = 1..k (which teacher directions are learned).
"""

import numpy as np


def overlap_matrix(theta, theta_star):
    """Θ*ᵀΘ̂ᵀ, shape (k, m), with the rows of Θ normalised."""
    norms = np.linalg.norm(theta, axis=1)
    return (theta_star.T @ theta.T) / np.where(norms > 0, norms, np.inf)


def alignment(theta, theta_star):
    """Network alignment ρ = σ_max(Θ*ᵀΘ̂ᵀ)."""
    ov = overlap_matrix(theta, theta_star)
    if ov.shape[1] == 1:
        return float(np.linalg.norm(ov))
    return float(np.linalg.norm(ov, 2))


def neuron_alignments(theta, theta_star):
    """ρ_j = ‖Θ*ᵀθ̂_j‖ for each neuron j."""
    return np.linalg.norm(overlap_matrix(theta, theta_star), axis=0)


def direction_overlaps(theta, theta_star):
    """o_l = max_j |θ*_lᵀθ̂_j| for each teacher direction l."""
    return np.abs(overlap_matrix(theta, theta_star)).max(axis=1)
