"""Link expressions to NumPy source (docs/model.md, "Links"): the sympy half of the link catalogue.

A link expression is in ``g`` (single index, k = 1) or in ``g1, …, gk`` (k ≤ ``MAX_INDEX``), with the
functions of the activation catalogue.  :func:`link_code` parses it, checks it, differentiates it
(k = 1) and prints h and h′ with ``sympy.lambdify``'s NumPy printer; the result, a
``link_functions.LinkCode``, holds the printed source and where each name it calls comes from, and
``links.get_link`` compiles it.  The built-in links go through the same function once, at
generation: ``python -m featlearn.model.link_expressions`` writes their codes to ``_link_code.py``,
so a job that uses only built-in links never imports sympy (about 0.6 s of CPU per job process).
"""

import importlib
import inspect
import re
import types
from pathlib import Path
from pprint import pformat

import numpy as np
import sympy

from featlearn.model import catalogue, link_functions

MAX_INDEX = 3
"""The largest k of a link expression (its hard directions are found on a tensor grid)."""

g = sympy.Symbol("g", real=True)
INDEXED = tuple(sympy.Symbol(f"g{j}", real=True) for j in range(1, MAX_INDEX + 1))
NAMESPACE = {
    **{name: value for name, value in catalogue.NAMESPACE.items() if name != "z"},
    "g": g,
    **{str(s): s for s in INDEXED},
}
"""Names a link expression may use: g or g1, …, gk and the functions of the activation catalogue."""

_MODULES = ("numpy", "scipy.special")
"""Where a name of the printed source is looked up first (lambdify's namespace for these modules),
before the builtins, ``functools`` (``reduce``, printed for ``Max``) and the module the value names."""

_ABSENT = object()


def _variables(expr, text):
    """The link's symbols in index order and k: (g,) or (g1, …, gk); an error for a mix of both."""
    free = expr.free_symbols
    if g in free and free & set(INDEXED):
        raise catalogue.ExpressionError(f"{text!r} mixes g with g1, g2, …: use one or the other")
    if free & set(INDEXED):
        k = max(INDEXED.index(s) for s in free) + 1
        return INDEXED[:k], k
    return (g,), 1


def _origin(name, value):
    """(name, module, literal) telling ``link_functions.compile_function`` how to rebind ``name``."""
    if isinstance(value, types.ModuleType):
        return name, value.__name__, None
    if isinstance(value, float):
        return name, None, repr(value)
    for module in (*_MODULES, "builtins", "functools", getattr(value, "__module__", None)):
        if module and getattr(importlib.import_module(module), name, _ABSENT) is value:
            return name, module, None
    raise catalogue.ExpressionError(f"the printed link calls {name!r}, which has no known module")


def function_code(expr, symbols):
    """(source, names) of ``expr`` as a NumPy function of ``symbols`` (``sympy.lambdify``'s printer):
    the source of ``def _lambdifygenerated(...)`` and the origin of every global name it reads."""
    function = sympy.lambdify(symbols, expr, modules=["numpy", "scipy"])
    source = inspect.getsource(function)
    names = tuple(
        _origin(name, function.__globals__[name])
        for name in function.__code__.co_names
        if name in function.__globals__  # not an attribute's name (``logical_and.reduce``)
    )
    return source, names


def _sample_points(k):
    """Points where h must be finite: every sample value on each axis (others 0.3) and the points of
    the Gauss–Hermite rule of the hard directions."""
    axis = np.full((link_functions.SAMPLES.size * k, k), 0.3)
    for j in range(k):
        axis[j * link_functions.SAMPLES.size : (j + 1) * link_functions.SAMPLES.size, j] = (
            link_functions.SAMPLES
        )
    return np.vstack([axis, link_functions.hermite_rule(k)[0]])


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
            values = link_functions.vectorised(
                link_functions.compile_function(*function_code(expr, symbols)), k
            )(points)
        except (ArithmeticError, ValueError, TypeError) as err:
            message = str(err).splitlines()[0] if str(err) else type(err).__name__
            raise catalogue.ExpressionError(f"{text!r} cannot be evaluated: {message}") from None
    bad = ~np.isfinite(values)
    if bad.any():
        where = ", ".join(f"{v:g}" for v in points[np.argmax(bad)])
        raise catalogue.ExpressionError(f"{text!r} is not a finite real number at g = ({where})")
    return expr, symbols, k


def link_code(name):
    """The ``link_functions.LinkCode`` of the link ``name``: a built-in
    (``link_functions.BUILT_IN``) or a link expression; a one-line ``ExpressionError`` for anything else."""
    text = link_functions.BUILT_IN.get(name, name)
    try:
        expr, symbols, k = parse(text)
    except catalogue.ExpressionError:
        if (
            name in link_functions.BUILT_IN
            or any(c in name for c in "()*+-/ ")
            or re.search(r"\bg\d*\b", name)
        ):
            raise
        built_in = ", ".join(link_functions.BUILT_IN)
        raise catalogue.ExpressionError(
            f"unknown link {name!r}: neither a built-in ({built_in}) nor an expression in g"
        ) from None
    h, names = function_code(expr, symbols)
    derivative, derivative_names = (
        function_code(catalogue.derivatives(expr, g)[1], symbols) if k == 1 else (None, ())
    )
    return link_functions.LinkCode(text, k, h, derivative, tuple(dict.fromkeys(names + derivative_names)))


def built_in_source():
    """The source of ``_link_code.py``: the ``LinkCode`` fields of every built-in link."""
    codes = {name: tuple(link_code(name)) for name in link_functions.BUILT_IN}
    return (
        "# Generated by `python -m featlearn.model.link_expressions` from the built-in links: do not edit.\n"
        '"""The built-in links printed to NumPy source (``link_functions.LinkCode`` fields, in order)."""\n\n'
        f"BUILT_IN_CODE = {pformat(codes, width=110, sort_dicts=False)}\n"
    )


if __name__ == "__main__":
    Path(link_functions.__file__).with_name("_link_code.py").write_text(built_in_source())
