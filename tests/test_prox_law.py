"""The fixed point's law across the prox's jumps (docs/outlier.md, (O15)–(O18)): closed forms for
Quad, a brute-force ω integral for GeLU, and the convergence of the fixed point under refinement."""

import math

import numpy as np
import pytest

from featlearn.model.activations import activation_code
from featlearn.model.links import get_link
from featlearn.model.loss import SQUARE, loss_derivatives
from featlearn.theory import prox_law
from featlearn.theory.fixed_point import FixedPointSolver
from featlearn.theory.prox_law import Quadrature

BASE = Quadrature()


def omega_law(activation, y, kappa, q, quadrature=BASE):
    """The nodes z, weights and (jump mass, min Φ″, jumps) of E_ω at one y ((O17), (O18))."""
    z = np.zeros(quadrature.per_y())
    weight = np.zeros(quadrature.per_y())
    x, w = np.polynomial.legendre.leggauss(quadrature.nodes)
    out = prox_law._inner(
        activation_code(activation), 1.0, 0.0, y, kappa, math.sqrt(q), SQUARE,
        quadrature.panels, quadrature.cutoff, quadrature.scan, x, w, z, weight,
    )  # fmt: skip
    keep = weight > 0
    return z[keep], weight[keep], out


def test_quad_jump_is_the_symmetric_bitangent():
    """Quad, ℓ = (u² − y)²/2: for y > 1/(2κ) Φ is a symmetric double well, the prox jumps at ω* = 0
    from −b to b with b² = y − 1/(2κ) (Φ′(b) = 0), so J = φ_q(0)·2b; the ω-mass is 1 (to the
    Gauss–Legendre error of 12 panels × 6 nodes over ±8√q)."""
    kappa, q, y = 0.3, 0.5, 4.0
    z, weight, (mass, _, jumps) = omega_law("quad", y, kappa, q)
    b = math.sqrt(y - 1 / (2 * kappa))
    assert jumps == 1
    assert mass == pytest.approx(2 * b / math.sqrt(2 * math.pi * q), rel=1e-10)
    assert weight.sum() == pytest.approx(1.0, abs=1e-7)
    assert np.all(np.abs(z) >= b * (1 - 1e-9))  # no node inside the jump
    z, weight, (mass, _, jumps) = omega_law("quad", 1.0, kappa, q)  # y < 1/(2κ): Φ convex
    assert jumps == 0 and mass == 0.0 and weight.sum() == pytest.approx(1.0, abs=1e-7)


def test_quad_cusp_is_where_the_double_well_is_born():
    """The jump is born at y_c = 1/(2κ), i.e. g_c = √(1 + 1/(2κ)) on he2, where min Φ″ = 1 − 2κy = 0."""
    kappa, q = 0.3, 0.5
    link = get_link("he2")
    breaks, born = prox_law.cusps(activation_code("quad"), 1.0, 0.0, link.h, kappa, q, SQUARE, BASE, 0.0, 8.0)
    assert born
    assert min(abs(g - math.sqrt(1 + 1 / (2 * kappa))) for g in breaks) < 1e-10


def test_gelu_omega_integral_matches_a_brute_force_one():
    """GeLU at y = 4 (a jump on the negative side): E_ω[z], E_ω[ℓ″/(1 + κℓ″)] and E_ω[(ω − z)²]
    from (O17) against the trapezoid rule on 400 001 global proxes over ±8√q (error ~ h·jump)."""
    kappa, q, y = 0.5, 0.8, 4.0
    z, weight, (_, _, jumps) = omega_law("gelu", y, kappa, q)
    assert jumps == 1
    code = activation_code("gelu")
    omega = np.linspace(-8 * math.sqrt(q), 8 * math.sqrt(q), 400_001)
    brute = np.array([prox_law._global_prox(code, 1.0, 0.0, y, o, kappa, SQUARE, 256) for o in omega])
    density = np.exp(-(omega**2) / (2 * q)) / math.sqrt(2 * math.pi * q)

    def moments(zs, omegas, weights):
        _, _, w = loss_derivatives("gelu", 1.0, 0.0, np.full(zs.size, y), zs)
        return [weights @ f for f in (zs, kappa * w / (1 + kappa * w), (omegas - zs) ** 2)]

    trapezoid = density * np.gradient(omega)
    trapezoid[[0, -1]] /= 2
    _, omega_nodes, _ = prox_law._phi_arrays(code, 1.0, 0.0, np.full(z.size, y), z, kappa, SQUARE)
    np.testing.assert_allclose(moments(z, omega_nodes, weight), moments(brute, omega, trapezoid), atol=2e-5)


@pytest.mark.parametrize(("activation", "delta"), [("quad", 7.0), ("gelu", 9.5)])
def test_the_fixed_point_converges_under_refinement(activation, delta):
    """Level 0 and level 1 (every count doubled) agree on κ and q to 1e−5 and on the outlier
    margin to 1e−4: the quadrature across the jumps converges, where the tensor Gauss–Hermite rule
    moved the threshold by ±0.2."""
    from featlearn.theory.outlier import OutlierSolver

    out = []
    for level in (0, 1):
        fp = FixedPointSolver(activation, "he2", quadrature=BASE.refined(level)).solve(delta)
        margin = OutlierSolver(fp.g2, fp.w, 1 / delta, fp.weights, fp.w_floor).margin()
        out.append((fp.kappa, fp.q, margin))
    np.testing.assert_allclose(out[0][:2], out[1][:2], rtol=1e-5)
    assert abs(out[0][2] - out[1][2]) < 1e-4


def test_the_stein_closure_differs_only_where_the_prox_jumps():
    """Bounded link (no jump, J = 0): the derivative and Stein forms of (O11) give the same fixed
    point; GeLU on he2 (J > 0): the Stein form's solves its own equation, E[κw/(1 + κw)] − J = 1/δ,
    at a different κ."""
    bump = [FixedPointSolver("gelu", "bump", closure=c).solve(10.0) for c in ("local", "stein")]
    assert bump[0].jump_mass == 0.0 and bump[0].kappa == pytest.approx(bump[1].kappa, rel=1e-9)
    solver = FixedPointSolver("gelu", "he2", closure="stein")
    stein, local = solver.solve(9.0), FixedPointSolver("gelu", "he2").solve(9.0)
    law = solver.law(stein.kappa, stein.q)
    ratio = stein.kappa * law.w / (1 + stein.kappa * law.w)
    assert law.weights @ ratio - law.jump_mass == pytest.approx(1 / 9.0, abs=1e-8)
    assert stein.jump_mass > 0 and abs(stein.kappa / local.kappa - 1) > 1e-3


@pytest.mark.parametrize("activation", ["quad", "gelu"])
def test_the_jump_mass_closes_gaussian_integration_by_parts(activation):
    """(O18): E[ωz]/q = E[1/(1 + κw)] + J, Stein's identity with the prox's jumps counted; the
    smooth part alone misses J (> 0 where the prox jumps)."""
    link = get_link("he2")
    kappa, q = (0.3, 0.5) if activation == "quad" else (0.5, 0.8)
    law = prox_law.prox_law(activation_code(activation), 1.0, 0.0, link.h, True, kappa, q, SQUARE, BASE)
    stein = law.weights @ (law.omega * law.z) / q
    smooth = law.weights @ (1 / (1 + kappa * law.w))
    assert law.jump_mass > 1e-3
    assert stein == pytest.approx(smooth + law.jump_mass, abs=2e-6)  # level 0: ~1e-6
