"""A link's printed NumPy source made a function (docs/model.md, "Links"): the built-in link
expressions, the record of a printed link (:class:`LinkCode`), its compilation and the quadrature and
sample points at which links are checked.  ``link_expressions`` prints links to this record (sympy);
``links`` compiles them into :class:`links.Link` objects."""

import functools
import importlib
import itertools
from typing import NamedTuple

import numpy as np
from numpy.polynomial.hermite_e import hermegauss

BUILT_IN = {
    "he2": "g**2 - 1",
    "square": "g**2",
    "abs": "Abs(g)",
    "bump": "1 - sqrt(2)*exp(-g**2/2)",
    "easy_hard": "g1 + g2**2 - 1",
}

HERMITE_NODES = 40
"""Gauss–Hermite nodes per axis of the first Hermite coefficients (also points of the sample check)."""

SAMPLES = np.array([*(0.3 * i for i in range(-20, 21)), -10.0, -1e-6, 1e-6, 10.0])
"""Values of g at which a link must be finite (and at which ``Link.even`` compares h(g), h(−g))."""


class LinkCode(NamedTuple):
    """A link printed to NumPy source (``link_expressions.link_code``): its expression, k, the source
    of h and of h′ (None for k > 1), each a ``def`` of one function, and (name, module, literal) of
    every global name they read (a module's attribute, or a float literal)."""

    expression: str
    k: int
    h: str
    derivative: str | None
    names: tuple


def compile_function(source, names):
    """The function that ``source`` (one ``def``) defines, its global ``names`` bound as
    :class:`LinkCode` records them."""
    namespace = {
        name: float(literal) if module is None else getattr(importlib.import_module(module), name)
        for name, module, literal in names
    }
    exec(source, namespace)  # source printed by sympy from a checked expression
    return namespace[source.removeprefix("def ").split("(", 1)[0]]


def vectorised(function, k):
    """h(G) for G of shape (n, k), as a float64 array of shape (n,), from h of k arguments."""

    def h(values):
        values = np.asarray(values)
        columns = [values[:, j] for j in range(k)]
        return np.broadcast_to(np.asarray(function(*columns), dtype=np.float64), values.shape[:1]).copy()

    return h


@functools.cache
def hermite_rule(k):
    """Points (HERMITE_NODES^k × k) and weights of the tensor Gauss–Hermite rule for N(0, I_k)."""
    x, w = hermegauss(HERMITE_NODES)
    points = np.array(list(itertools.product(x, repeat=k)))
    weights = np.prod(np.array(list(itertools.product(w / w.sum(), repeat=k))), axis=1)
    return points, weights
