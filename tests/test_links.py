"""The link catalogue (docs/model.md, 'Links'): built-in links and link expressions take one path
(``featlearn.model.links.get_link``); E[g² | y] from the preimages of y (docs/spectral.md, (S1a))."""

import copy
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from conftest import GELU_SWEEP, TINY_CONFIG, config_error
from scipy import integrate

from featlearn.model import link_expressions, links
from featlearn.model.catalogue import ExpressionError, derivatives
from featlearn.model.links import BUILT_IN, get_link
from featlearn.pipeline import checks, jobs
from featlearn.pipeline.jobs import settings_of
from featlearn.spectral import method as spectral
from featlearn.theory import dmft
from featlearn.theory.fixed_point import FixedPointSolver

HAND_WRITTEN = {
    "he2": lambda g: g[:, 0] ** 2 - 1.0,
    "square": lambda g: g[:, 0] ** 2,
    "abs": lambda g: np.abs(g[:, 0]),
    "bump": lambda g: 1.0 - np.sqrt(2.0) * np.exp(-0.5 * g[:, 0] ** 2),
    "easy_hard": lambda g: g[:, 0] + g[:, 1] ** 2 - 1.0,
}
"""The links as they were written by hand before the catalogue."""


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_built_in_links_equal_their_hand_written_formulas(name, rng):
    link = get_link(name)
    g = rng.standard_normal((20_000, link.k)) * 3
    np.testing.assert_allclose(link.h(g), HAND_WRITTEN[name](g), rtol=1e-12, atol=1e-12)


def test_the_checked_in_link_code_is_the_generators():
    path = Path(links.__file__).with_name("_link_code.py")
    assert path.read_text() == link_expressions.built_in_source(), (
        "run `python -m featlearn.model.link_expressions` after editing links.BUILT_IN"
    )


PRINTED = [
    "Min(Max(g, -1), 1)",  # functools.reduce, and logical_and.reduce in h′ (an attribute, not a global)
    "Max(g, 0, g**2 - 1)",
    "Piecewise((g, (g > 0) & (g < 1)), (0, True))",
    "Piecewise((g1, (g1 > 0) & (g2 > 0)), (0, True))",
    "erf(g1) + pi*Phi(g2) + phi(g3)",  # scipy.special and a float constant
    "atan(g)**2 + exp(1)",
]


@pytest.mark.parametrize("name", [*sorted(BUILT_IN), *PRINTED])
def test_link_code_gives_sympys_values_bit_for_bit(name, rng):
    """A link compiled from its printed code (the checked-in code of a built-in, or an expression's
    printed when it is first used) and lambdify of its parsed expression agree exactly (h and h′)."""
    import sympy

    link = get_link(name)
    expr, symbols, k = link_expressions.parse(BUILT_IN.get(name, name))
    g = rng.standard_normal((20_000, k)) * 3
    direct = sympy.lambdify(symbols, expr, modules=["numpy", "scipy"])(*g.T)
    np.testing.assert_array_equal(link.h(g), np.broadcast_to(direct, (g.shape[0],)))
    if k == 1:
        slope = sympy.lambdify(symbols, derivatives(expr, link_expressions.g)[1], modules=["numpy", "scipy"])
        np.testing.assert_array_equal(link.derivative(g), np.broadcast_to(slope(g[:, 0]), (g.shape[0],)))


def test_a_built_in_edited_since_its_code_was_printed_is_printed_again(monkeypatch):
    monkeypatch.setitem(BUILT_IN, "he2", "g**2 - 2")
    get_link.cache_clear()
    try:
        assert get_link("he2").h(np.zeros((1, 1)))[0] == -2.0  # not the stale checked-in g² − 1
    finally:
        get_link.cache_clear()


def test_a_process_with_built_in_links_does_not_import_sympy():
    code = (
        "import sys\n"
        "from featlearn.gd.trials import run_cell\n"
        "from featlearn.model.links import BUILT_IN, get_link\n"
        "for name in BUILT_IN:\n"
        "    get_link(name).even\n"
        "get_link('he2').preimages\n"
        "print('sympy' in sys.modules)\n"
        "get_link('g**3 - 3*g')\n"
        "print('sympy' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]  # only a link written as an expression needs sympy


def test_hard_directions_are_those_without_a_first_hermite_coefficient():
    expected = {
        "he2": (0,),
        "abs": (0,),
        "bump": (0,),
        "easy_hard": (1,),
        "g**3 - 3*g": (0,),  # He₃: information exponent 3, still no first coefficient
        "g + g**2": (),
        "(g - 0.3)**2": (),  # E[g (g − 0.3)²] = −0.6
        "g1*g2 + g3": (0, 1),
    }
    assert {name: get_link(name).hard for name in expected} == expected
    assert get_link("g1*g2 + g3").k == 3 and get_link("g2**2").k == 2


def _two_roots(r1, r2, slope):
    """(S1a) with two preimages r1, r2 and |h′| given by ``slope``."""
    w1, w2 = np.exp(-0.5 * r1**2) / slope(r1), np.exp(-0.5 * r2**2) / slope(r2)
    return (r1**2 * w1 + r2**2 * w2) / (w1 + w2)


def test_conditional_second_moment_against_closed_forms(rng):
    g = rng.standard_normal(2000) * 1.5
    for name in ("he2", "square", "abs", "bump"):
        y = get_link(name).h(g[:, None])
        keep = np.abs(g) < 5  # bump: 1 − y = √2 e^{−g²/2} keeps 10 digits
        np.testing.assert_allclose(get_link(name).g2_given_y(y)[keep], g[keep] ** 2, rtol=1e-9, atol=1e-12)
    # not even: y = g + g² has preimages (−1 ± √(1 + 4y))/2, |h′| = |2g + 1|
    y = g + g**2
    root = np.sqrt(1 + 4 * y)
    expected = _two_roots((root - 1) / 2, (-root - 1) / 2, lambda r: np.abs(2 * r + 1))
    np.testing.assert_allclose(get_link("g + g**2").g2_given_y(y), expected, rtol=1e-10)
    # a minimum between grid points: y = (g − c)², preimages c ± √y
    c = 0.31415926
    y = (g - c) ** 2
    expected = _two_roots(c + np.sqrt(y), c - np.sqrt(y), lambda r: np.abs(2 * (r - c)))
    np.testing.assert_allclose(get_link("(g - 0.31415926)**2").g2_given_y(y), expected, rtol=1e-10)


@pytest.mark.parametrize("name", ["tanh(2*g) + g**2/2", "exp(-Abs(g - 1))", "g + g**2"])
def test_conditional_second_moment_obeys_the_tower_property(name):
    """E[M(Y) f(Y)] = E[g² f(Y)] for f = 1, y, y² (trapezoid rule on a fine g-grid, where M(h(g)) is
    smooth: links with two preimages, a kink, no symmetry)."""
    x = np.linspace(-12, 12, 240_001)
    w = np.exp(-0.5 * x**2)
    w /= w.sum()
    link = get_link(name)
    y = link.h(x[:, None])
    m = link.g2_given_y(y)
    for f in (np.ones_like(y), y, y**2):
        assert abs(w @ (m * f) - w @ (x**2 * f)) < 1e-10 * (1 + abs(w @ (x**2 * f)))


@pytest.mark.slow
def test_tower_property_with_three_preimages():
    """He₃ = g³ − 3g has three preimages for |y| < 2: E[M(Y) f(Y)] = E[g² f(Y)] by adaptive
    quadrature split where M(h(g)) jumps (g = ±1, ±2)."""
    link = get_link("g**3 - 3*g")

    def expectation(f, moment):
        def integrand(x):
            y = link.h(np.array([[x]]))
            value = link.g2_given_y(y)[0] if moment else x**2
            return value * f(y[0]) * np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)

        return integrate.quad(integrand, -12, 12, points=[-2, -1, 1, 2], limit=400, epsabs=1e-13)[0]

    for f in (lambda y: 1.0, lambda y: y, lambda y: y**2):
        assert abs(expectation(f, True) - expectation(f, False)) < 1e-10


def test_conditional_second_moment_against_monte_carlo(rng):
    """M(y) of y = tanh(2g) + g²/2 against the mean of g² over draws with y in a narrow bin."""
    link = get_link("tanh(2*g) + g**2/2")
    g = rng.standard_normal(4_000_000)
    y = link.h(g[:, None])
    for centre in (-0.5, 0.2, 1.0, 3.0):
        inside = np.abs(y - centre) < 0.01
        mc, se = g[inside] ** 2, (g[inside] ** 2).std() / np.sqrt(inside.sum())
        assert abs(link.g2_given_y(np.array([centre]))[0] - mc.mean()) < 4 * se + 2e-3, centre


def test_delta_alg_by_quadrature_is_invariant_to_affine_maps_of_y():
    he2 = spectral.weak_recovery_threshold("he2")
    assert abs(he2 - 0.5) < 1e-12
    for name in ("g**2 - 1", "3*g**2 + 2", "-Abs(g)", "exp(-g**2)"):
        assert abs(spectral.weak_recovery_threshold(name) - he2) < 1e-9, name
    assert spectral.weak_recovery_threshold("g + g**2") > 0.5


BAD_LINKS = {
    "g + x": "unknown symbol 'x'",
    "log(g)": "is not a finite real number at g = (-6)",
    "1/(g - 0.3)": "is not a finite real number at g = (0.3)",
    "g1 + g": "mixes g with g1",
    "g4 + g1": "at most 3 indices",
    "g > 0": "is not an expression in g",
    "gleu": "unknown link 'gleu': neither a built-in",
}


@pytest.mark.parametrize("text", sorted(BAD_LINKS))
def test_a_bad_link_is_a_one_line_error(text):
    with pytest.raises(
        ExpressionError, match=BAD_LINKS[text].replace("(", r"\(").replace(")", r"\)")
    ) as error:
        get_link(text)
    assert "\n" not in str(error.value)


def test_a_link_with_a_jump_is_refused_and_nan_stays_nan():
    """h′ does not see a jump (Piecewise of two increasing pieces): the pieces refuse it instead of
    bracketing preimages in an unsorted table; a NaN y gives a NaN M."""
    with pytest.raises(ValueError, match="jumps near g = 0.998"):
        get_link("Piecewise((g, g < 1), (g - 5, True))").g2_given_y(np.array([0.5]))
    m = get_link("he2").g2_given_y(np.array([np.nan, 0.0]))
    assert np.isnan(m[0]) and abs(m[1] - 1.0) < 1e-12


def test_a_flat_link_trains_but_has_no_conditional_second_moment():
    link = get_link("Max(g, 0)")
    assert link.k == 1 and link.hard == ()
    with pytest.raises(ValueError, match="h′ = 0 on an interval"):
        link.g2_given_y(np.array([0.5]))


# --- the config -------------------------------------------------------------------------------------

HE3 = "g**3 - 3*g"


def with_link(config, key_path, value):
    out = copy.deepcopy(config)
    section = out
    for key in key_path[:-1]:
        section = section[key]
    section[key_path[-1]] = value
    return out


def test_a_link_expression_passes_the_checks_and_changes_only_its_sweeps_params():
    """Only the sweep's own jobs change: its blocks and the anatomy cells that follow its trials."""
    config = with_link(TINY_CONFIG, ("sweeps", "gelu", "link"), HE3)
    checks.check_config(config)
    assert settings_of("sweep_block", config, sweep="gelu").link == HE3
    before, after = jobs.params_by_output(TINY_CONFIG), jobs.params_by_output(config)
    changed = {out for out in before if before[out] != after[out]}
    followers = jobs.outputs(config, "escape_anatomy_cell", sweep="gelu")
    assert followers and changed == {*jobs.outputs(config, "sweep_block", sweep="gelu"), *followers}


@pytest.mark.parametrize(
    ("key_path", "value", "message"),
    [
        (("sweeps", "gelu", "link"), "g**3 - 3*x", "unknown symbol 'x'"),
        (("spectral", "link"), "g1 + g2**2", "one direction needed"),
        (("spectral", "link"), "Max(g, 0)", "the spectral method needs E[g² | y]"),
        (("theory", "models", "quad", "link"), "easy_hard", "one direction needed"),
        (("defaults", "link"), "g + g**2", "no hard direction"),
        (("theory", "models", "quad", "link"), "tanh(g)", "has no hard direction"),
        (("sweeps", "easy_hard", "link"), "g1*g2", "is not g1 easy and g2 hard"),
    ],
)
def test_a_link_a_job_cannot_use_is_a_config_error_at_its_key(key_path, value, message):
    error = config_error(with_link(TINY_CONFIG, key_path, value))
    assert message in str(error) and "\n" not in str(error)
    keys = {"no hard direction": "hessian", "is not g1 easy and g2 hard": "easy_hard.sweep"}
    assert error.key == keys.get(message, ".".join(key_path))


# --- every stage ------------------------------------------------------------------------------------


def test_an_expression_of_a_built_in_link_gives_its_numbers_in_every_stage():
    """ "g**2 - 1" is he2 written out: GD data, the DMFT, the fixed point and the spectral method give
    the same numbers bit for bit (its name differs, nothing else)."""
    settings = replace(GELU_SWEEP, steps=20, n_test=100, dtype="float64", record_points=5, link="he2")
    from featlearn.gd import trials

    runs = [trials.run_trial(replace(settings, link=link), 40, 4.0, 0) for link in ("he2", "g**2 - 1")]
    np.testing.assert_array_equal(runs[0].train_loss, runs[1].train_loss)
    np.testing.assert_array_equal(runs[0].rho, runs[1].rho)
    paths = [dmft.solve("gelu", link, 6.0, 1.0, 3, 2000, ("links", 1)) for link in ("he2", "g**2 - 1")]
    np.testing.assert_array_equal(paths[0].norm2, paths[1].norm2)
    np.testing.assert_array_equal(paths[0].c_r, paths[1].c_r)
    fixed = [FixedPointSolver("gelu", link).solve(8.0) for link in ("he2", "g**2 - 1")]
    assert fixed[0].q == fixed[1].q
    assert spectral.asymptotic_overlap("he2", 2.0) == spectral.asymptotic_overlap("g**2 - 1", 2.0)


def test_a_link_expression_trains_and_has_a_dmft():
    """He₃ (not a built-in): GD reduces the loss, the DMFT solves."""
    from featlearn.gd import trials

    settings = replace(GELU_SWEEP, steps=30, n_test=100, dtype="float64", record_points=5, link=HE3)
    traj = trials.run_trial(settings, 40, 6.0, 0)
    assert np.isfinite(traj.train_loss[-1]) and traj.train_loss[-1] < traj.train_loss[0]
    res = dmft.solve("gelu", HE3, 6.0, 1.0, 3, 2000, ("links", 2))
    assert np.all(np.isfinite(res.norm2)) and np.all(np.isfinite(res.c_r))
