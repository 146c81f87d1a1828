"""The model catalogue: every activation σ is a sympy expression in z (docs/model.md, eq. (M2)), every
loss ρ a sympy expression in the residual e (eq. (M3a)).

σ′ and σ″ (ρ′ = ψ and ρ″) come from symbolic differentiation.  Kinks are differentiated piecewise:
``Abs``, ``Max`` and ``Min`` are first rewritten as ``Piecewise``, whose derivative is the
``Piecewise`` of the derivatives of its pieces, so the derivatives hold almost everywhere (relu:
σ′ = 1[z > 0], σ″ = 0, with the value of the z ≤ 0 piece at the kink).  A derivative that still
contains ``DiracDelta`` or an unevaluated ``Derivative``/``Subs`` makes the expression an error.

:func:`kernel_source` prints the catalogues as the source of a numba module whose ``activation(code,
z)`` returns (σ(z), σ′(z), σ″(z)) and whose ``rho(code, e, kappa)`` returns (ρ(e), ψ(e), ρ″(e)),
one ``if code == k:`` branch per entry (common subexpressions of the triple shared by
``sympy.cse``, constants folded to float literals).  The built-in catalogues ``BUILT_IN`` and
``BUILT_IN_LOSSES`` are checked in as ``_model_kernel.py``; ``python -m featlearn.model.catalogue``
regenerates it.  A job whose activation or loss is given in the config (``activations:``,
``losses:``) gets a module of its own, :func:`config_kernel_source`: the built-ins with their codes
and the config entries after them.
"""

import ast
import math
import tokenize
from io import StringIO
from itertools import pairwise
from pathlib import Path

import sympy
from sympy.parsing.sympy_parser import auto_number, convert_xor, parse_expr, rationalize
from sympy.printing.pycode import PythonCodePrinter

z = sympy.Symbol("z", real=True)
e = sympy.Symbol("e", real=True)
kappa = sympy.Symbol("kappa", positive=True)

BUILT_IN = {
    "gelu": "z*Phi(z)",
    "quad": "z**2",
    "relu": "Piecewise((z, z > 0), (0, True))",
    "tanh": "tanh(z)",
    "erf": "erf(z)",
    "he2": "z**2 - 1",
}

BUILT_IN_LOSSES = {
    "square": "e**2/2",
    "huber": (
        "Piecewise((kappa*e - kappa**2/2, e > kappa), (-kappa*e - kappa**2/2, e < -kappa), (e**2/2, True))"
    ),
}
"""The built-in losses ρ(e) of the residual e = f(x) − y; Huber's threshold is the parameter
``kappa`` (the config's ``huber``), which only a built-in loss may use."""

FUNCTIONS = {
    "exp": sympy.exp,
    "log": sympy.log,
    "sqrt": sympy.sqrt,
    "pi": sympy.pi,
    "tanh": sympy.tanh,
    "erf": sympy.erf,
    "Phi": lambda x: (1 + sympy.erf(x / sympy.sqrt(2))) / 2,
    "phi": lambda x: sympy.exp(-(x**2) / 2) / sympy.sqrt(2 * sympy.pi),
    "Abs": sympy.Abs,
    "Max": sympy.Max,
    "Min": sympy.Min,
    "Piecewise": sympy.Piecewise,
    "sin": sympy.sin,
    "cos": sympy.cos,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "atan": sympy.atan,
    "True": True,
}
"""Functions an expression may use (Φ and φ are the standard normal distribution function and
density)."""

NAMESPACE = {"z": z, **FUNCTIONS}
"""Names an activation may use: z and the functions."""

LOSS_NAMESPACE = {"e": e, **FUNCTIONS}
"""Names a config loss may use: the residual e and the functions."""

_BUILT_IN_LOSS_NAMESPACE = {**LOSS_NAMESPACE, "kappa": kappa}

_PARSER_GLOBALS = {
    "Integer": sympy.Integer,
    "Float": sympy.Float,
    "Rational": sympy.Rational,
    "I": sympy.I,
    "__builtins__": {},
}
_KINKS = (sympy.Abs, sympy.Max, sympy.Min)
_NOT_TWICE_DIFFERENTIABLE = (sympy.DiracDelta, sympy.Derivative, sympy.Subs)
_SAMPLES = (*(0.3 * i for i in range(-20, 21)), -10.0, -1e-6, 1e-6, 10.0)
_LABELS = ("σ", "σ′", "σ″")
_LOSS_LABELS = ("ρ", "ψ", "ρ″")
_SAMPLE_KAPPA = 1.0
"""Huber's threshold at which a built-in loss is checked."""
_LINE_LENGTH = 110  # [tool.ruff] line-length


class ExpressionError(ValueError):
    """An activation or loss expression that cannot be used: its message is one line naming the problem."""


def _check_names(text, namespace):
    """Reject any name outside ``namespace`` before sympy evaluates the string."""
    try:
        tokens = list(tokenize.generate_tokens(StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError) as err:
        raise ExpressionError(f"cannot parse {text!r}: {err.args[0]}") from None
    for token, following in pairwise(tokens):
        if token.type == tokenize.NAME and token.string not in namespace:
            kind = "function" if following.string == "(" else "symbol"
            raise ExpressionError(
                f"unknown {kind} {token.string!r} in {text!r}; known: {', '.join(sorted(namespace))}"
            )


def _check_finite(text, triple, symbol=z, labels=_LABELS):
    """The triple (σ, σ′, σ″, or ρ, ψ, ρ″) is finite and real at every sample point of ``symbol``
    in ``_SAMPLES`` (κ = ``_SAMPLE_KAPPA``)."""
    for label, expr in zip(labels, triple, strict=True):
        function = sympy.lambdify(symbol, expr.subs(kappa, _SAMPLE_KAPPA), modules="math")
        for point in _SAMPLES:
            try:
                value = function(point)
                finite = isinstance(value, int | float) and math.isfinite(value)
            except (ArithmeticError, ValueError) as err:
                value, finite = err, False
            if not finite:
                raise ExpressionError(
                    f"{text!r}: {label} is not a finite real number at {symbol} = {point:g} ({value})"
                )


def parse(text):
    """The sympy expression of the activation ``text`` (a Python expression in z; ``^`` is a power).

    Raises ``ExpressionError`` for a syntax error, a name outside ``NAMESPACE``, a result that is
    not an expression, a σ, σ′ or σ″ that is not a finite real number at a sample point of
    [−6, 6] (41 points, plus ±1e−6 and ±10), or a σ that is not twice differentiable.
    """
    expr = sympify_text(text, NAMESPACE)
    _check_finite(text, derivatives(expr))
    return expr


def parse_loss(text, namespace=LOSS_NAMESPACE):
    """The sympy expression of the loss ρ(e) ``text`` (a Python expression in the residual e; a
    built-in loss may also use Huber's threshold ``kappa``): the checks of :func:`parse` with ρ, ψ
    = ρ′ and ρ″ in place of σ, σ′ and σ″."""
    expr = sympify_text(text, namespace)
    _check_finite(text, derivatives(expr, e, _LOSS_LABELS), e, _LOSS_LABELS)
    return expr


def sympify_text(text, namespace):
    """The sympy expression of ``text`` whose names are those of ``namespace`` (``^`` is a power,
    decimals are exact rationals); ``ExpressionError`` for a syntax error, an unknown name or a
    result that is not an expression."""
    _check_names(text, namespace)
    try:
        expr = parse_expr(
            text, dict(namespace), (auto_number, rationalize, convert_xor), global_dict=dict(_PARSER_GLOBALS)
        )
    except (SyntaxError, TypeError, ValueError) as err:
        message = str(err).splitlines()[0] if str(err) else type(err).__name__
        raise ExpressionError(f"cannot parse {text!r}: {message}") from None
    if not isinstance(expr, sympy.Expr):
        variables = ", ".join(sorted(str(v) for v in namespace.values() if isinstance(v, sympy.Symbol)))
        raise ExpressionError(f"{text!r} is not an expression in {variables}")
    return expr


def substitute(text, parameter, value):
    """``text`` with every occurrence of the name ``parameter`` replaced by the number ``value``."""
    tokens = tokenize.generate_tokens(StringIO(text).readline)
    out = [
        (tokenize.OP, f"({float(value)!r})")
        if tok.type == tokenize.NAME and tok.string == parameter
        else tok[:2]
        for tok in tokens
    ]
    return tokenize.untokenize(out).strip()


def derivatives(expr, symbol=z, labels=_LABELS):
    """(σ, σ′, σ″) of ``expr`` in ``symbol`` (z; (ρ, ψ, ρ″) in e for a loss, named by ``labels``),
    with ``Abs``/``Max``/``Min`` rewritten as ``Piecewise`` and ``Piecewise`` differentiated piece
    by piece (the derivatives hold almost everywhere).

    Raises ``ExpressionError`` if σ′ or σ″ contains ``DiracDelta`` or an unevaluated derivative.
    """
    s = expr.rewrite(_KINKS, sympy.Piecewise)
    ds = s.diff(symbol)
    d2s = ds.diff(symbol)
    for label, derivative in zip(labels[1:], (ds, d2s), strict=True):
        if found := derivative.atoms(*_NOT_TWICE_DIFFERENTIABLE):
            raise ExpressionError(
                f"{expr} is not twice differentiable: {label} contains {', '.join(sorted(map(str, found)))}"
            )
    return s, ds, d2s


class _KernelPrinter(PythonCodePrinter):
    """sympy's ``math``-module printer with float literals and a NaN default for ``Piecewise``."""

    def __init__(self):
        super().__init__({"fully_qualified_modules": True})

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Piecewise(self, expr):
        if expr.args[-1].cond != sympy.true:
            expr = sympy.Piecewise(*expr.args, (sympy.nan, True))
        return super()._print_Piecewise(expr)


_PARENTHESES = "__parentheses__"


def _is_power(node):
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)


def _is_simple(node):
    """A power operand that ``ruff format`` hugs: a name, a number or an attribute chain."""
    if isinstance(node, ast.Attribute):
        return _is_simple(node.value)
    return isinstance(node, ast.Name | ast.Constant)


def _parenthesised(node):
    return ast.Call(ast.Name(_PARENTHESES), [node], [])


class _RuffPowers(ast.NodeTransformer):
    """Write powers as ``ruff format`` does: ``z**2`` without spaces when both operands are simple,
    ``(1.0 + x0) ** 2`` otherwise, and a power under a unary operator or as the base of a power in
    parentheses: ``-(z**2)``."""

    def visit_BinOp(self, node):
        hug = _is_power(node) and _is_simple(node.left) and _is_simple(node.right)
        wrap_base = _is_power(node) and _is_power(node.left)
        self.generic_visit(node)
        if wrap_base:
            node.left = _parenthesised(node.left)
        if hug:
            return ast.Name(f"{ast.unparse(node.left)}**{ast.unparse(node.right)}")
        return node

    def visit_UnaryOp(self, node):
        wrap = _is_power(node.operand)
        self.generic_visit(node)
        if wrap:
            node.operand = _parenthesised(node.operand)
        return node


def _python(expr):
    """Python source of ``expr`` in the layout of ``ruff format`` (``ast.unparse`` spacing and
    parentheses, powers as in :class:`_RuffPowers`)."""
    tree = _RuffPowers().visit(ast.parse(_KernelPrinter().doprint(expr), mode="eval"))
    return ast.unparse(tree).replace(f"{_PARENTHESES}(", "(")


def _element(expr):
    """A return-tuple element: a conditional expression is parenthesised for readability."""
    source = _python(expr)
    return f"({source})" if isinstance(expr, sympy.Piecewise) else source


def _float_constants(expr):
    """``expr`` with its numeric constants as 20-digit floats (``sympy.nfloat``), inside the
    conditions of a ``Piecewise`` too (``nfloat`` cannot enter a boolean such as ``Or``)."""
    if isinstance(expr, sympy.Expr) and not expr.has(sympy.Piecewise):
        return sympy.nfloat(expr, n=20, exponent=False)
    if not expr.args:
        return expr
    return expr.func(*map(_float_constants, expr.args))


def _branch(code, name, triple, temporaries):
    """The ``if code == k:`` branch of one entry: shared subexpressions, then the triple."""
    triple = [_float_constants(part) for part in triple]
    shared, reduced = sympy.cse(triple, symbols=temporaries)
    lines = [f"    if code == {code}:  # {name}"]
    lines += [f"        {symbol} = {_python(value)}" for symbol, value in shared]
    return lines + _return_lines([_element(part) for part in reduced])


def _return_lines(elements):
    """``return a, b, c`` on one line, or one element per line where that is too long."""
    line = f"        return {', '.join(elements)}"
    if len(line) <= _LINE_LENGTH:
        return [line]
    return ["        return (", *(f"            {element}," for element in elements), "        )"]


def _comment(name, entry):
    """``name: expression`` on one line, cut to fit a branch's comment."""
    text = f"{name}: {' '.join(str(entry).split())}"
    room = _LINE_LENGTH - len("    if code == 10:  # ")
    return text if len(text) <= room else text[: room - 3] + "..."


def _activation_branches(entries, temporaries):
    for code, (name, entry) in enumerate(entries.items()):
        expr = parse(entry) if isinstance(entry, str) else entry
        yield from _branch(code, _comment(name, entry), derivatives(expr), temporaries)


def _loss_branches(entries, temporaries):
    for code, (name, entry) in enumerate(entries.items()):
        expr = parse_loss(entry, _BUILT_IN_LOSS_NAMESPACE) if name in BUILT_IN_LOSSES else parse_loss(entry)
        yield from _branch(code, _comment(name, entry), derivatives(expr, e, _LOSS_LABELS), temporaries)


BUILT_IN_HEADER = (
    "# Generated by featlearn.model.catalogue.kernel_source from BUILT_IN and BUILT_IN_LOSSES;\n"
    "# do not edit.\n"
    "# `python -m featlearn.model.catalogue` regenerates it.\n"
)


_MODULE = '''{header}"""Model kernel: (σ, σ′, σ″) of each catalogue activation and (ρ, ψ, ρ″)
of each catalogue loss, one branch per code."""

import math

from numba import njit

ACTIVATIONS = {{
{activation_codes}
}}

LOSSES = {{
{loss_codes}
}}


@njit(cache=True, fastmath=False)
def activation(code, z):
    """Return (σ(z), σ′(z), σ″(z)) for the activation with integer ``code``."""
{activation_branches}
    return math.nan, math.nan, math.nan


@njit(cache=True, fastmath=False)
def rho(code, e, kappa):
    """Return (ρ(e), ψ(e) = ρ′(e), ρ″(e)) for the loss with integer ``code`` (``kappa``: Huber's
    threshold)."""
{loss_branches}
    return math.nan, math.nan, math.nan
'''


def _codes(entries):
    return "\n".join(f'    "{name}": {code},' for code, name in enumerate(entries))


def kernel_source(activations, losses, header=BUILT_IN_HEADER):
    """Source of a module defining ``ACTIVATIONS`` and ``LOSSES`` (name → code, in the order of the
    entries), the numba function ``activation(code, z)`` → (σ(z), σ′(z), σ″(z)) and the numba
    function ``rho(code, e, kappa)`` → (ρ(e), ψ(e), ρ″(e)), (nan, nan, nan) for an unknown code.

    ``activations`` and ``losses`` map names to expression strings (checked by :func:`parse` and
    :func:`parse_loss`) or sympy expressions in ``z`` and ``e``; ``header`` is the comment on top.
    The source is laid out as ``ruff format`` writes it except that only the ``return`` lines are
    wrapped at the line length; the built-in module is therefore unchanged by ``ruff format``.
    """
    temporaries = sympy.numbered_symbols("x")
    return _MODULE.format(
        header=header,
        activation_codes=_codes(activations),
        loss_codes=_codes(losses),
        activation_branches="\n".join(_activation_branches(activations, temporaries)),
        loss_branches="\n".join(_loss_branches(losses, temporaries)),
    )


def config_kernel_source(activation=None, loss=None):
    """Source of the kernel module of a job with a config activation and/or a config loss, each
    ``(name, expression)`` or None: the built-in entries (their codes unchanged) followed by the
    config entry, whose code is ``len(BUILT_IN)`` (``len(BUILT_IN_LOSSES)`` for the loss)."""
    named = ", ".join(
        f"{kind} {entry[0]!r}" for kind, entry in (("activation", activation), ("loss", loss)) if entry
    )
    header = (
        "# Generated by featlearn.model.catalogue.config_kernel_source from the built-ins and the config\n"
        f"# {named}; do not edit.\n"
    )
    activations = {**BUILT_IN, **dict([activation] if activation else [])}
    losses = {**BUILT_IN_LOSSES, **dict([loss] if loss else [])}
    return kernel_source(activations, losses, header)


if __name__ == "__main__":
    Path(__file__).with_name("_model_kernel.py").write_text(kernel_source(BUILT_IN, BUILT_IN_LOSSES))
