"""The early window of the finite Hessian built from a DMFT path set (docs/escape.md, (E24)).

The outlier equations (O3)–(O8) give the spectrum of H = (1/n) Xᵀ diag(w) X in the limit n → ∞ at
a fixed law of (g², w), with the bulk rows independent of the weights.  Fed the N = n paths of a
path set (``theory.finite_n``), they treat each path as an atom of an infinite population; the
system has each sample once, as one rank-one term.  With unbounded weights (y = z² − 1) the
difference is not small: the extreme samples make single spikes, and θ*'s aligned direction can sit
among them at finite n where the n → ∞ formula puts the bulk edge at the most negative weight.  This
module takes the same law at the system's own size instead of its limit:

    H_t = (1/n) Σ_i w_i^t x_i x_iᵀ,   x_i = (|g_i|, x̃_i),   x̃_i ~ N(0, I_{d−1}) drawn once,      (E24)

(g_i, w_i^t) path i of the path set (N = n), θ* = e₁; the sign of g_i does not change the law of
H_t, x̃ being symmetric.  At each step t its ``k`` smallest eigenpairs (λ_j, v_j) give

    aligned(t) ⟺ some j has λ_j < 0 and (v_j · e₁)² ≥ ``aligned``,   λ_al(t) = min of those λ_j,

the anatomy's criterion (E16b) on the model matrix; the window ends at its first close, as in (E19).
"""

import numpy as np
from scipy import linalg


def aligned_steps(eigenvalue, overlap2, aligned):
    """Where an eigenvalue is negative with overlap² ≥ ``aligned`` (elementwise; NaN compares False):
    the aligned test of (E19) on the outlier track and of (E24) on the finite Hessian."""
    return (eigenvalue < 0) & (overlap2 >= aligned)


def weighted_gram_bottom(x, w, k):
    """The ``k`` smallest eigenpairs (ascending) of H = (1/n) Xᵀ diag(w) X for float64 rows ``x``:
    one product (Xᵀ scaled by w, a d × n copy) times X, n·d² multiply-adds, then dense ``eigh`` of
    its lower triangle for the bottom ``k`` (O(d³))."""
    return linalg.eigh((x.T * w) @ x / x.shape[0], subset_by_index=[0, k - 1], driver="evr")


def surrogate_rows(g2, d, rng):
    """The rows x_i = (|g_i|, x̃_i) of (E24): an n × d float64 array, x̃ standard Gaussian from ``rng``."""
    g2 = np.asarray(g2, float)
    x = np.empty((g2.size, d))
    x[:, 0] = np.sqrt(g2)
    x[:, 1:] = rng.standard_normal((g2.size, d - 1))
    return x


def aligned_scan(x, weights, aligned, k):
    """(aligned(t), λ_al(t)) of (E24) for the weights ``weights[t]`` of steps t = 0, 1, …: the scan
    stops at the first close of the first run of aligned steps (the window (E19) needs no more), so
    later steps read False and NaN."""
    steps = len(weights)
    hits, lam_al = np.zeros(steps, bool), np.full(steps, np.nan)
    for t in range(steps):
        lam, vecs = weighted_gram_bottom(x, np.asarray(weights[t], float), k)
        ok = aligned_steps(lam, vecs[0] ** 2, aligned)
        if ok.any():
            hits[t], lam_al[t] = True, lam[ok].min()
        elif hits.any():
            break
    return hits, lam_al
