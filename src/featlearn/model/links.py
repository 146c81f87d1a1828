"""Link functions h: R^k → R of the multi-index target y = h(Θ*ᵀx) (+ noise) (docs/model.md, eq. (M1)).

Every link is a sympy expression: in ``g`` for a single-index link (k = 1), in ``g1, …, gk`` for a
multi-index one (k ≤ ``MAX_INDEX``; k is the largest index used).  The built-in links are entries of
``BUILT_IN``; anywhere the config names a link it may instead write the expression itself
(``link: "g**3 - 3*g"``), which then is the link's name.  Both take the same path, :func:`get_link`:

* h is compiled once per process into a vectorised NumPy function of the projections G = XΘ*
  (shape (n, k)) by ``sympy.lambdify``;
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
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import sympy
from numpy.polynomial.hermite_e import hermegauss

from featlearn.model import catalogue
from featlearn.model.link_preimages import Preimages

BUILT_IN = {
    "he2": "g**2 - 1",
    "square": "g**2",
    "abs": "Abs(g)",
    "bump": "1 - sqrt(2)*exp(-g**2/2)",
    "easy_hard": "g1 + g2**2 - 1",
}

MAX_INDEX = 3
"""The largest k of a link expression (its hard directions are found on a tensor grid)."""

HARD_TOL = 1e-9
"""Direction j is hard if |E[g_j h(g)]| ≤ HARD_TOL · (1 + E[h²]^{1/2})."""

HERMITE_NODES = 40
"""Gauss–Hermite nodes per axis of the first Hermite coefficients (also points of the sample check)."""

g = sympy.Symbol("g", real=True)
INDEXED = tuple(sympy.Symbol(f"g{j}", real=True) for j in range(1, MAX_INDEX + 1))
NAMESPACE = {
    **{name: value for name, value in catalogue.NAMESPACE.items() if name != "z"},
    "g": g,
    **{str(s): s for s in INDEXED},
}
"""Names a link expression may use: g or g1, …, gk and the functions of the activation catalogue."""

_SAMPLES = np.array([*(0.3 * i for i in range(-20, 21)), -10.0, -1e-6, 1e-6, 10.0])


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
        return bool(
            np.allclose(self.h(_SAMPLES[:, None]), self.h(-_SAMPLES[:, None]), rtol=1e-12, atol=1e-12)
        )

    def g2_given_y(self, y):
        """E[g² | y] of the noiseless target y = h(g), g ~ N(0, 1) (single-index links, (S1a))."""
        return self.preimages.conditional_second_moment(y)


def _variables(expr, text):
    """The link's symbols in index order and k: (g,) or (g1, …, gk); an error for a mix of both."""
    free = expr.free_symbols
    if g in free and free & set(INDEXED):
        raise catalogue.ExpressionError(f"{text!r} mixes g with g1, g2, …: use one or the other")
    if free & set(INDEXED):
        k = max(INDEXED.index(s) for s in free) + 1
        return INDEXED[:k], k
    return (g,), 1


def _vectorised(expr, symbols):
    """h(G) for G of shape (n, k), as a float64 array of shape (n,)."""
    function = sympy.lambdify(symbols, expr, modules=["numpy", "scipy"])

    def h(values):
        values = np.asarray(values)
        columns = [values[:, j] for j in range(len(symbols))]
        return np.broadcast_to(np.asarray(function(*columns), dtype=np.float64), values.shape[:1]).copy()

    return h


def _of_scalar(function):
    """A single-index function of G (shape (n, 1)) as an elementwise function of g (any shape)."""
    return lambda values: function(np.reshape(values, (-1, 1))).reshape(np.shape(values))


@functools.cache
def _hermite_rule(k):
    """Points (HERMITE_NODES^k × k) and weights of the tensor Gauss–Hermite rule for N(0, I_k)."""
    x, w = hermegauss(HERMITE_NODES)
    points = np.array(list(itertools.product(x, repeat=k)))
    weights = np.prod(np.array(list(itertools.product(w / w.sum(), repeat=k))), axis=1)
    return points, weights


def _sample_points(k):
    """Points where h must be finite: every sample value on each axis (others 0.3) and the points of
    the Gauss–Hermite rule of the hard directions."""
    axis = np.full((_SAMPLES.size * k, k), 0.3)
    for j in range(k):
        axis[j * _SAMPLES.size : (j + 1) * _SAMPLES.size, j] = _SAMPLES
    return np.vstack([axis, _hermite_rule(k)[0]])


def _hard_directions(h, k):
    """Indices j with |E[g_j h(g)]| ≤ HARD_TOL (1 + E[h²]^{1/2}) (tensor Gauss–Hermite rule, whose
    points ``parse`` has checked h finite at)."""
    points, weights = _hermite_rule(k)
    with np.errstate(all="ignore"):
        values = h(points)
    scale = 1.0 + np.sqrt(weights @ values**2)
    return tuple(j for j in range(k) if abs(weights @ (points[:, j] * values)) <= HARD_TOL * scale)


def parse(text):
    """(sympy expression, its symbols, k) of the link expression ``text``; ``ExpressionError`` for a
    syntax error, an unknown name, k > ``MAX_INDEX`` or a value that is not a finite real number at a
    sample point."""
    if re.search(r"\bg([4-9]|\d\d+)\b", text):
        raise catalogue.ExpressionError(
            f"{text!r}: a link has at most {MAX_INDEX} indices (g1, …, g{MAX_INDEX})"
        )
    expr = catalogue.sympify_text(text, NAMESPACE)
    symbols, k = _variables(expr, text)
    points = _sample_points(k)
    with np.errstate(all="ignore"):
        try:
            values = _vectorised(expr, symbols)(points)
        except (ArithmeticError, ValueError, TypeError) as err:
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise catalogue.ExpressionError(f"{text!r} cannot be evaluated: {message}") from None
    bad = ~np.isfinite(values)
    if bad.any():
        where = ", ".join(f"{v:g}" for v in points[np.argmax(bad)])
        raise catalogue.ExpressionError(f"{text!r} is not a finite real number at g = ({where})")
    return expr, symbols, k


@functools.cache
def get_link(name):
    """The link ``name``: a built-in (``BUILT_IN``) or a link expression; a one-line ``ValueError``
    (``ExpressionError``) for anything else."""
    text = BUILT_IN.get(name, name)
    try:
        expr, symbols, k = parse(text)
    except catalogue.ExpressionError:
        if name in BUILT_IN or any(c in name for c in "()*+-/ ") or re.search(r"\bg\d*\b", name):
            raise
        raise catalogue.ExpressionError(
            f"unknown link {name!r}: neither a built-in ({', '.join(BUILT_IN)}) nor an expression in g"
        ) from None
    h = _vectorised(expr, symbols)
    derivative = _vectorised(catalogue.derivatives(expr, g)[1], symbols) if k == 1 else None
    return Link(name, text, k, h, _hard_directions(h, k), derivative)
