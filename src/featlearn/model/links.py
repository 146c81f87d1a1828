"""Link functions h: R^k → R of the multi-index target y = h(Θ*ᵀx) (+ noise) (docs/model.md, eq. (M1)).

Each link is registered with its index dimension k and a vectorised function of the projections
G = XΘ* (shape (n, k)).  The single-index links also register E[g² | y] (needed by the spectral
method, docs/spectral.md, eqs. (S1)–(S2)): every registered single-index link determines g² from y.

* ``he2``          h(g) = g² − 1            (default: centred noiseless phase retrieval)
* ``square``       h(g) = g²                (uncentred phase retrieval)
* ``abs``          h(g) = |g|
* ``bump``         h(g) = 1 − √2·e^{−g²/2}  (bounded, even, E[h] = 0, second Hermite coefficient 1/2)
* ``easy_hard``    h(g₁, g₂) = g₁ + g₂² − 1 (k = 2: g₁ easy, first Hermite coefficient 1;
                                             g₂ hard, first Hermite coefficient 0)
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Link:
    """A link h with index dimension k; ``g2_given_y`` is E[g² | y] for the noiseless target
    (single-index links whose y determines g², else None)."""

    name: str
    k: int
    h: Callable[[np.ndarray], np.ndarray]
    description: str
    g2_given_y: Callable[[np.ndarray], np.ndarray] | None = None
    hard: tuple = (0,)  # indices of the hard directions (first Hermite coefficient zero)


LINKS = {
    link.name: link
    for link in (
        Link("he2", 1, lambda g: g[:, 0] ** 2 - 1.0, "g^2 - 1", lambda y: y + 1.0),
        Link("square", 1, lambda g: g[:, 0] ** 2, "g^2", lambda y: y),
        Link("abs", 1, lambda g: np.abs(g[:, 0]), "|g|", lambda y: y**2),
        Link(
            "bump",
            1,
            lambda g: 1.0 - np.sqrt(2.0) * np.exp(-0.5 * g[:, 0] ** 2),
            "1 - sqrt(2) exp(-g^2/2)",
            lambda y: -2.0 * np.log((1.0 - y) / np.sqrt(2.0)),
        ),
        Link("easy_hard", 2, lambda g: g[:, 0] + g[:, 1] ** 2 - 1.0, "g1 + g2^2 - 1", hard=(1,)),
    )
}


def get_link(name):
    """The registered link ``name``; a clear error for an unknown name."""
    try:
        return LINKS[name]
    except KeyError:
        raise ValueError(f"unknown link {name!r}; registered: {sorted(LINKS)}") from None
