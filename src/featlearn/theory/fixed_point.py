"""Static replica-symmetric fixed point of the converged restricted state (docs/outlier.md, eqs.
(O10)–(O14); the labels below are those of the page).

The restricted GD limit is treated as the M-estimator θ̂ = argmin Σ_i ℓ(y_i, a_iᵀθ) with A ∈ R^{n×p}
iid N(0, 1), n/p = δ, ℓ(y, z) = (aσ(z + b) − y)²/2.  The RS cavity gives, with ω ~ N(0, q)
independent of (g, y = h(g)):

    z = prox_{κℓ(y,·)}(ω) = argmin_u [ℓ(y, u) + (u − ω)²/(2κ)],   w = ℓ″(y, z)            (O10)
    E[κw/(1 + κw)] = 1/δ                                                                  (O11)
    q = δ E[(ω − z)²]                     (q = ‖θ̂‖²)                                      (O12)

Stability (de Almeida–Thouless, (O13)): δ E[(κw/(1 + κw))²] < 1.  Every solution carries this value
(``FixedPoint.at_value``, ``stable``), and δ_NN(∞) (O14) is reported with the AT value at its root
and the state's verdict from the refinement study (``long_time_state`` in theory_thresholds.csv,
``analysis.theory_tables.rs_state``); where AT fails, the replica-symmetric law is only an
approximation.  Which links and δ pass is read from that table, not assumed here.

Expectations are integrated across the jumps of the prox (the GLOBAL minimiser, which jumps where
two local minima of a non-convex ℓ exchange): ``prox_law`` maps each y's ω-integral onto the smooth
pieces of z between the bitangents of Φ(u) = u²/2 + κℓ(y, u) ((O15)–(O18)), at the numerical
parameters ``prox_law.Quadrature``.  The law of (g², w) at the fixed point, with its quadrature
weights, its jump mass J and the infimum of w over its support, feeds the outlier equations
(O3)–(O8): at a stationary point m(0) = κ/γ.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from featlearn.model.activations import activation_code
from featlearn.model.links import get_link
from featlearn.model.loss import SQUARE, loss_derivatives
from featlearn.theory.prox_law import Quadrature, prox_law


@dataclass
class FixedPoint:
    delta: float
    kappa: float
    q: float  # ‖θ̂‖²
    train_loss: float  # E[ℓ(y, z)]
    at_value: float  # δ E[(κw/(1 + κw))²]; stable iff < 1
    jump_mass: float  # J of (O18): the prox's jumps, E_y Σ φ_q(ω*)(b − a)
    w_floor: float  # the least w met on the contact sets, (min Φ″ − 1)/κ
    g2: np.ndarray  # quadrature nodes of the law of (g², w) ...
    w: np.ndarray
    weights: np.ndarray  # ... and their weights

    @property
    def stable(self):
        return bool(self.at_value < 1.0)


class FixedPointSolver:
    """Solves (O11) and (O12) for one (activation, link, δ) with the law of (g, z, w) integrated
    across the prox's jumps (``prox_law``, (O15)–(O18)) at the numerical parameters ``quadrature``,
    for the catalogue loss ``loss`` (a ``featlearn.model.loss.Loss``: the square loss by default,
    Huber's or a config loss; docs/model.md, eq. (M3a)).  ``closure``: (O11) in its derivative form
    ("local", the Hessian's resolvent identity; the product's δ_NN(∞)) or its Stein form ("stein",
    the RS energy's stationarity in q; a sensitivity check, docs/outlier.md (O18))."""

    def __init__(self, activation_name, link, a=1.0, b=0.0, quadrature=None, loss=SQUARE, closure="local"):
        lk = get_link(link)
        if lk.k != 1:
            raise ValueError(
                f"the fixed point is implemented for single-index links; {link!r} has k = {lk.k}"
            )
        self.activation = activation_name
        self.code = activation_code(activation_name)
        self.a, self.b, self.loss = float(a), float(b), loss
        self.link = lk
        self.quadrature = quadrature if quadrature is not None else Quadrature()
        self.closure = closure
        self._last = None

    def law(self, kappa, q):
        """The :class:`prox_law.ProxLaw` at (κ, q) (the last one is kept)."""
        if self._last is None or self._last[0] != (kappa, q):
            law = prox_law(
                self.code, self.a, self.b, self.link.h, self.link.even, kappa, q, self.loss, self.quadrature
            )
            self._last = ((kappa, q), law)
        return self._last[1]

    @staticmethod
    def _mean(law, values):
        return float(law.weights @ values)

    def _response(self, law, kappa):
        """The left side of (O11): E[κw/(1 + κw)] (``closure`` "local"), or the Stein form
        1 − E[ξz]/√q = E[κw/(1 + κw)] − J ("stein", (O18))."""
        smooth = self._mean(law, kappa * law.w / (1.0 + kappa * law.w))
        return smooth - law.jump_mass if self.closure == "stein" else smooth

    def kappa_for(self, q, delta, guess=None):
        """κ solving (O11) at fixed q (its left side increases from 0 to the mass of w > 0), bracketed
        around ``guess`` when given."""

        def resid(log_kappa):
            kappa = math.exp(log_kappa)
            return self._response(self.law(kappa, q), kappa) - 1.0 / delta

        lo, hi = (-12.0, 2.0) if guess is None else (math.log(guess) - 1.0, math.log(guess) + 1.0)
        while guess is not None and resid(lo) > 0:
            lo -= 2.0
        while resid(hi) < 0:
            hi += 2.0
            if hi > 30:
                raise ValueError("no kappa solves E[kw/(1+kw)] = 1/delta")
        return math.exp(optimize.brentq(resid, lo, hi, xtol=1e-8))

    def _joint(self, delta, start):
        """(κ, q) by Powell's hybrid method on (O11), (O12) in (log κ, log q) from ``start``; None if
        it does not converge (the prox is only piecewise smooth)."""

        def resid(x):
            kappa, q = np.exp(x)
            law = self.law(kappa, q)
            return [
                delta * self._response(law, kappa) - 1.0,
                math.log(delta * self._mean(law, (law.omega - law.z) ** 2)) - x[1],
            ]

        sol = optimize.root(resid, np.log(start), method="hybr", options={"xtol": 1e-11, "maxfev": 40})
        if not sol.success or np.max(np.abs(resid(sol.x))) > 1e-8:
            return None
        return np.exp(sol.x)

    def solve(self, delta, start=None, q_bracket=(1e-4, 1e3)):
        """The fixed point (κ, q) and its law.  A joint root find from ``start`` = (κ, q) (e.g. the
        solution at a nearby δ; default (2/δ, 0.3)); if that fails, (O12) by bracketing in log q
        with κ from (O11) inside."""
        joint = self._joint(delta, start if start is not None else (2.0 / delta, 0.3))
        if joint is not None:
            kappa, q = joint
            return self._result(delta, kappa, q)

        kappa_guess = [start[0] if start is not None else None]

        def resid(log_q):
            q = math.exp(log_q)
            kappa = kappa_guess[0] = self.kappa_for(q, delta, kappa_guess[0])
            law = self.law(kappa, q)
            return math.log(delta * self._mean(law, (law.omega - law.z) ** 2)) - log_q

        lo, hi = (math.log(v) for v in q_bracket)
        if start is not None and resid(math.log(start[1]) - 0.5) > 0 and resid(math.log(start[1]) + 0.5) < 0:
            lo, hi = math.log(start[1]) - 0.5, math.log(start[1]) + 0.5
        elif resid(lo) <= 0 or resid(hi) >= 0:
            raise ValueError(f"no fixed point with q in {q_bracket} at delta={delta}")
        log_q = optimize.brentq(resid, lo, hi, xtol=1e-7)
        q = math.exp(log_q)
        return self._result(delta, self.kappa_for(q, delta, kappa_guess[0]), q)

    def _result(self, delta, kappa, q):
        law = self.law(kappa, q)
        ell, _, _ = loss_derivatives(self.activation, self.a, self.b, law.y, law.z, self.loss)
        ratio = kappa * law.w / (1.0 + kappa * law.w)
        return FixedPoint(
            delta=float(delta),
            kappa=kappa,
            q=q,
            train_loss=self._mean(law, ell),
            at_value=delta * self._mean(law, ratio**2),
            jump_mass=law.jump_mass,
            w_floor=(law.min_curvature - 1.0) / kappa,
            g2=law.g**2,
            w=law.w,
            weights=law.weights,
        )


def warm():
    """Compile the prox-law kernels (``io.warmup``): one law of Quad on he2."""
    solver = FixedPointSolver(
        "quad", "he2", quadrature=Quadrature(panels=2, nodes=2, g_panels=2, g_nodes=2, scan=16)
    )
    solver.law(0.3, 0.5)
