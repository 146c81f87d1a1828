"""The population (test) risk of the network, exactly, by Gauss–Hermite quadrature (docs/model.md, eq. (M9)).

For x ~ N(0, I_d) the network sees x only through z = Θx ∈ R^m and the target through
G = Θ*ᵀx ∈ R^k, jointly Gaussian: z = A G + L ζ with A = ΘΘ* (m×k), L Lᵀ = Θ(I − Θ*Θ*ᵀ)Θᵀ
(the part of the neurons orthogonal to the teacher subspace, rank r ≤ m) and ζ ~ N(0, I_r)
independent of G.  Hence

    R(Θ) = ½ E[(h(G) + σ_ε ε − f)²] = ½ E_{G,ζ}[(h(G) − (1/m) Σ_j a_j σ(z_j + b_j))²] + ½ σ_ε²,

a (k + r)-dimensional Gaussian integral, evaluated with a tensor Gauss–Hermite rule (``nodes``
per axis, fewer in high dimension so that the grid stays below ``MAX_POINTS``).  For one neuron
and a single-index target it is 2-D: z = α g + β ζ with α = θᵀθ*, β = ‖(I − θ*θ*ᵀ)θ‖.
"""

import functools
import itertools

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

from featlearn.model.activations import evaluate
from featlearn.model.links import get_link

MAX_POINTS = 50_000


@functools.cache
def _rule(dim, nodes):
    """Nodes (points × dim) and weights of the tensor probabilists' Gauss–Hermite rule for N(0, I)."""
    per_axis = max(4, min(nodes, int(MAX_POINTS ** (1 / max(dim, 1)))))
    x, w = hermegauss(per_axis)
    w = w / w.sum()
    points = np.array(list(itertools.product(x, repeat=dim)))
    weights = np.prod(np.array(list(itertools.product(w, repeat=dim))), axis=1)
    return points, weights


def population_risk(theta, a, b, activation, theta_star, link, noise=0.0, nodes=40):
    """½ E[(y − f(x))²] for x ~ N(0, I_d), y = h(Θ*ᵀx) + noise·ε (docs/model.md, eq. (M9))."""
    theta = np.atleast_2d(np.asarray(theta, dtype=np.float64))
    m = theta.shape[0]
    along = theta @ theta_star  # A, m × k
    ortho = theta - along @ theta_star.T
    gram = ortho @ ortho.T
    vals, vecs = np.linalg.eigh(0.5 * (gram + gram.T))
    keep = vals > 1e-14 * max(vals.max(), 1e-300)
    factor = vecs[:, keep] * np.sqrt(vals[keep])  # L, m × r
    k, r = theta_star.shape[1], factor.shape[1]
    points, weights = _rule(k + r, nodes)
    g, zeta = points[:, :k], points[:, k:]
    z = g @ along.T + zeta @ factor.T  # points × m
    a = np.broadcast_to(np.asarray(a, dtype=np.float64), (m,))
    b = np.broadcast_to(np.asarray(b, dtype=np.float64), (m,))
    f = evaluate(activation, z + b)[0] @ a / m
    y = get_link(link).h(g)
    return float(0.5 * weights @ (y - f) ** 2 + 0.5 * noise**2)
