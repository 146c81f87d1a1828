import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest
import sympy

from featlearn.model import catalogue
from featlearn.model.activations import ACTIVATIONS, evaluate
from featlearn.model.catalogue import (
    BUILT_IN,
    BUILT_IN_LOSSES,
    ExpressionError,
    derivatives,
    kernel_source,
    parse,
)

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def hand_written(code, z):
    """The hand-written kernel the generated one replaced, as a plain Python reference."""
    if code == 0:
        phi = _INV_SQRT_2PI * math.exp(-0.5 * z * z)
        cdf = 0.5 * (1.0 + math.erf(z * _INV_SQRT_2))
        return z * cdf, cdf + z * phi, phi * (2.0 - z * z)
    if code == 1:
        return z * z, 2.0 * z, 2.0
    if code == 2:
        if z > 0.0:
            return z, 1.0, 0.0
        return 0.0, 0.0, 0.0
    if code == 3:
        t = math.tanh(z)
        return t, 1.0 - t * t, -2.0 * t * (1.0 - t * t)
    if code == 4:
        ds = _TWO_OVER_SQRT_PI * math.exp(-z * z)
        return math.erf(z), ds, -2.0 * z * ds
    if code == 5:
        return z * z - 1.0, 2.0 * z, 2.0
    return math.nan, math.nan, math.nan


GRID = np.concatenate([np.linspace(-8.0, 8.0, 321), [0.0, 1e-12, -1e-12, 1e-6, -1e-6, 5e-324]])
USER = {
    "swish": "z/(1 + exp(-z))",
    "softplus": "log(1 + exp(z))",
    "ztanh": "z*tanh(z)",
    "hermite": "z**2 - 1 + 0.3*(z**4 - 6*z**2 + 3)",
}


def import_generated(source, path):
    """Import the module ``source`` written to ``path`` (numba's disk cache needs a real file)."""
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_built_in_codes_are_unchanged():
    assert list(BUILT_IN) == ["gelu", "quad", "relu", "tanh", "erf", "he2"]
    assert ACTIVATIONS == {name: code for code, name in enumerate(BUILT_IN)}


@pytest.mark.parametrize("name", list(BUILT_IN))
def test_generated_kernel_matches_the_hand_written_one(name):
    generated = evaluate(name, GRID)
    reference = np.array([hand_written(ACTIVATIONS[name], z) for z in GRID]).T
    for got, want in zip(generated, reference, strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_checked_in_kernel_is_what_the_catalogue_generates():
    path = Path(catalogue.__file__).with_name("_model_kernel.py")
    assert path.read_text() == kernel_source(BUILT_IN, BUILT_IN_LOSSES), (
        "run `python -m featlearn.model.catalogue`"
    )


@pytest.mark.parametrize("text", [*BUILT_IN.values(), *USER.values()])
def test_symbolic_derivatives_match_finite_differences(text):
    s, ds, d2s = (sympy.lambdify(catalogue.z, part, modules="math") for part in derivatives(parse(text)))
    h = 1e-5
    for z in np.linspace(-4.0, 4.0, 81) + 0.013:  # away from relu's kink at 0
        np.testing.assert_allclose(ds(z), (s(z + h) - s(z - h)) / (2 * h), rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(d2s(z), (ds(z + h) - ds(z - h)) / (2 * h), rtol=1e-6, atol=1e-8)


def test_kinks_have_almost_everywhere_derivatives():
    relu = [
        derivatives(parse(BUILT_IN["relu"]))[k].subs(catalogue.z, z) for k in range(3) for z in (-1, 0, 1)
    ]
    assert relu == [0, 0, 1, 0, 0, 1, 0, 0, 0]
    s, ds, d2s = derivatives(parse("Abs(z)"))
    assert [ds.subs(catalogue.z, z) for z in (-2, 2)] == [-1, 1]
    assert d2s == 0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("z + w", "unknown symbol 'w'"),
        ("foo(z)", "unknown function 'foo'"),
        ("Heaviside(z)", "unknown function 'Heaviside'"),
        ("z.diff(z)", "unknown function 'diff'"),
        ("z +* 2", "cannot parse"),
        ("tanh(z", "cannot parse"),
        ("z > 0", "is not an expression in z"),
        ("1/z", "σ is not a finite real number at z = 0"),
        ("log(z)", "σ is not a finite real number at z = -6"),
        ("sqrt(z)", "σ is not a finite real number at z = -6"),
        ("z + 1j", "σ is not a finite real number at z = -6"),
        ("exp(exp(z))", "σ is not a finite real number at z = 10"),
        ("Piecewise((z, z > -8))", "σ is not a finite real number at z = -10"),
    ],
)
def test_parse_errors_name_the_problem(text, message):
    with pytest.raises(ExpressionError, match=message) as error:
        parse(text)
    assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        (sympy.Heaviside(catalogue.z), "σ′ contains DiracDelta"),
        (sympy.Function("f")(catalogue.z), "σ′ contains Derivative"),
    ],
)
def test_derivatives_reject_what_is_not_twice_differentiable(expr, message):
    with pytest.raises(ExpressionError, match=f"not twice differentiable: {message}"):
        derivatives(expr)


def test_user_catalogue_compiles_under_numba(tmp_path):
    module = import_generated(
        kernel_source(USER, BUILT_IN_LOSSES, header="# test catalogue\n"), tmp_path / "user_kernel.py"
    )
    assert module.ACTIVATIONS == {name: code for code, name in enumerate(USER)}
    for name, text in USER.items():
        triple = [sympy.lambdify(catalogue.z, part, modules="math") for part in derivatives(parse(text))]
        for z in (-7.5, -1.0, 0.0, 0.3, 6.0):
            got = module.activation(module.ACTIVATIONS[name], z)
            want = [part(z) for part in triple]
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)
    assert all(math.isnan(value) for value in module.activation(len(USER), 0.5))
