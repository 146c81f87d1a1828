"""Link functions h: R^k → R of the multi-index target y = h(Θ*ᵀx) (+ noise) (docs/model.md, eq. (M1)).

Every link is an expression: in ``g`` for a single-index link (k = 1), in ``g1, …, gk`` for a
multi-index one.  The built-in links are entries of ``BUILT_IN``; anywhere the config names a link it
may instead write the expression itself (``link: "g**3 - 3*g"``), which then is the link's name.
Both take the same path, :func:`get_link`:

* the expression is parsed, checked and printed to NumPy source (h, and h′ for k = 1) by
  ``featlearn.model.link_expressions`` (sympy); the built-ins' printed code is checked in as
  ``_link_code.py``, so a process that uses built-in links only never imports sympy;
* the source is compiled once per process into a vectorised function of the projections G = XΘ*
  (shape (n, k));
* the hard directions are the indices j whose first Hermite coefficient E[g_j h(g)] vanishes
  (tensor Gauss–Hermite quadrature, relative tolerance ``HARD_TOL``);
* a single-index link also gives E[g² | y] for the noiseless target, by its preimages
  (``featlearn.model.link_preimages``; needed by the spectral method, docs/spectral.md (S1)–(S2)).

Built-in links:

* ``he2``          h(g) = g² − 1            (default: centred noiseless phase retrieval)
* ``square``       h(g) = g²                (uncentred phase retrieval)
* ``abs``          h(g) = |g|
* ``bump``         h(g) = 1 − √2·e^{−g²/2}  (bounded, even, E[h] = 0, second Hermite coefficient 1/2)
* ``easy_hard``    h(g₁, g₂) = g₁ + g₂² − 1 (k = 2: g₁ easy, first Hermite coefficient 1;
                                             g₂ hard, first Hermite coefficient 0)
"""

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from featlearn.model._link_code import BUILT_IN_CODE
from featlearn.model.link_functions import (
    BUILT_IN,
    SAMPLES,
    LinkCode,
    compile_function,
    hermite_rule,
    vectorised,
)
from featlearn.model.link_preimages import Preimages

HARD_TOL = 1e-9
"""Direction j is hard if |E[g_j h(g)]| ≤ HARD_TOL · (1 + E[h²]^{1/2})."""


@dataclass(frozen=True)
class Link:
    """A link h with index dimension k, its expression, its hard directions and (k = 1) its
    derivative h′, from which the preimages that give E[g² | y] are built on first use."""

    name: str
    expression: str
    k: int
    h: Callable[[np.ndarray], np.ndarray]
    hard: tuple
    derivative: Callable[[np.ndarray], np.ndarray] | None = None

    @functools.cached_property
    def preimages(self):
        """The monotone pieces of h (``link_preimages.Preimages``); ValueError for k > 1 or a link
        that is constant on an interval."""
        if self.derivative is None:
            raise ValueError(f"link {self.name!r} has k = {self.k}: E[g² | y] needs a single index")
        return Preimages(_of_scalar(self.h), _of_scalar(self.derivative), self.name)

    @functools.cached_property
    def even(self):
        """Whether h(−g) = h(g) (single index; checked at the sample points, relative 1e-12): then
        y carries no sign of g, E[g | y] = 0."""
        if self.k != 1:
            return False
        return bool(np.allclose(self.h(SAMPLES[:, None]), self.h(-SAMPLES[:, None]), rtol=1e-12, atol=1e-12))

    def g2_given_y(self, y):
        """E[g² | y] of the noiseless target y = h(g), g ~ N(0, 1) (single-index links, (S1a))."""
        return self.preimages.conditional_second_moment(y)


def _of_scalar(function):
    """A single-index function of G (shape (n, 1)) as an elementwise function of g (any shape)."""
    return lambda values: function(np.reshape(values, (-1, 1))).reshape(np.shape(values))


def _hard_directions(h, k):
    """Indices j with |E[g_j h(g)]| ≤ HARD_TOL (1 + E[h²]^{1/2}) (tensor Gauss–Hermite rule, whose
    points ``link_expressions.parse`` has checked h finite at)."""
    points, weights = hermite_rule(k)
    with np.errstate(all="ignore"):
        values = h(points)
    scale = 1.0 + np.sqrt(weights @ values**2)
    return tuple(j for j in range(k) if abs(weights @ (points[:, j] * values)) <= HARD_TOL * scale)


@functools.cache
def get_link(name):
    """The link ``name``: a built-in (``BUILT_IN``, its checked-in code) or a link expression (printed
    by ``link_expressions.link_code``, as is a built-in edited since its code was printed); a one-line
    ``ValueError`` (``ExpressionError``) for anything else."""
    code = BUILT_IN_CODE.get(name)
    if code is None or code[0] != BUILT_IN.get(name):
        from featlearn.model import link_expressions  # sympy: only for a link written as an expression

        code = link_expressions.link_code(name)
    code = LinkCode(*code)
    h = vectorised(compile_function(code.h, code.names), code.k)
    derivative = vectorised(compile_function(code.derivative, code.names), 1) if code.derivative else None
    return Link(name, code.expression, code.k, h, _hard_directions(h, code.k), derivative)
