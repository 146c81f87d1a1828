"""Certified early stopping of a GD trial at a local minimum (docs/model.md, eqs. (M11)–(M14)).

A trial that sits near a strict local minimum of R̂ stays there: GD with a stable step converges
into that minimum, so neither a failure (it will not escape later) nor a success (it will not lose
its alignment) can change.  The certificate proves the minimum close enough, before GD has crawled
all the way into it (the last stretch is linear convergence at the rate 1 − ηλ_min, hundreds to
thousands of steps when λ_min is small).

At Θ with (loss-scaled) gradient g = s∇R̂(Θ) and smallest Hessian eigenvalue λ = s·λ_min(∇²R̂(Θ)) > 0
(Lanczos), and L the Lipschitz constant of the Hessian near Θ, Kantorovich's theorem for
Newton's method on ∇R̂ = 0 says: if

    h = L‖g‖/λ² ≤ 1/4,                                                                   (M11)

there is a critical point Θ* with ‖Θ* − Θ‖ ≤ r = 2‖g‖/λ, and the Hessian stays ⪰ (λ − 2Lr)·I ≻ 0
on the ball of radius 2r around Θ, so Θ* is a strict local minimum and GD from Θ (a contraction
towards Θ* in that ball) converges to it without leaving the ball.  The alignment moves by at most

    |ρ(Θ*) − ρ(Θ)| ≤ Δρ = r/(σ_min(Θ) − r),                                               (M12)

σ_min(Θ) the smallest singular value of the m×d weight matrix (for m = 1, ‖θ‖: θ ↦ θ/‖θ‖ is
1/‖θ‖-Lipschitz).  A safety factor κ inflates the estimate L̂ of L and r; the trial is certified when

    κL̂‖g‖/λ² ≤ 1/4,   κr/(σ_min(Θ) − κr) ≤ ρ_tol,   ρ(Θ) + ρ_tol < ρ_low or ρ(Θ) − ρ_tol ≥ ρ_high,  (M13)

ρ_low the lower of the escape and success levels and ρ_high the success level: the outcome (a
failure, or a success that sits in an aligned minimum below the freezing level) is then settled
and the recorded final ρ is within ρ_tol of the minimum's.  Within ρ_tol of a level the tolerance
shrinks to half the distance to it, so the minimum stays on ρ's side.  Where λ is tiny (a nearly flat
minimum) the radius r is large and (M13) comes late or never; there the practical second-order
test also stops the run:

    ‖g‖ ≤ ``grad_floor``   and   λ > 0                                                         (M14)

(a positive definite Hessian at a point whose gradient is below the floor, 10⁻⁶ in the sweeps:
the stopping rule the sweeps used before (M13), never later than it; it applies at any ρ, as that
rule did).

Cost.  A Lanczos run costs about as much as a hundred GD steps, so the certificate runs one only
when it expects to succeed.  Near a minimum GD is a power iteration of I − ηH on the gradient, so
‖g‖ decays at the rate of the softest excited mode: over each window of ``check_every`` steps
(once ‖g‖ ≤ ``check_grad``) the decay gives a free estimate λ̂ = ln(‖g_start‖/‖g_end‖)/(η·steps),
and successive windows give L̂ = |λ̂_k − λ̂_{k−1}|/‖Θ_k − Θ_{k−1}‖ (the change of the soft
curvature along GD's own path; also from successive Lanczos values).  The Lanczos check runs when
(M13) holds with λ̂ (capped by the last Lanczos value) in place of λ, or when ‖g‖ reaches the
floor of (M14), and never within ``check_every`` steps of the last one.  It is warm-started from
the last eigenvector.  benchmarks/early_certificate.py validates the rule against runs continued
to ‖∇R̂‖ ≤ 10⁻⁶.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class MinimumCertificate:
    """The certificate (M13)/(M14) of one run, with its state between steps.

    The run's point is Θ, or with a trained second layer the flat vector of every trained parameter
    (Θ, then a and/or b): ``bottom(point, v0)`` returns (λ_min, eigenvector) of ∇²R̂ in those
    parameters (unscaled; Lanczos started from v0, None at the first check), ``weights(point)`` its
    Θ (for σ_min in (M12); the point itself by default); ``loss_scale`` is s and ``lr`` is η of the run.
    Distances (r, L̂) are those of the point: with a trained layer they bound Θ's.
    """

    bottom: Callable[[np.ndarray, np.ndarray | None], tuple[float, np.ndarray]]
    lr: float
    loss_scale: float = 1.0
    check_grad: float = 1e-3
    check_every: int = 50
    safety: float = 4.0
    rho_tol: float = 0.01
    rho_low: float = 0.5
    rho_high: float = 0.5
    grad_floor: float = 0.0
    weights: Callable[[np.ndarray], np.ndarray] | None = None
    checks: int = 0
    certified_by: str | None = None
    _window: tuple | None = field(default=None, repr=False)  # (t, ‖g‖) at the window's start
    _rate: tuple | None = field(default=None, repr=False)  # (λ̂, point) of the last window
    _lipschitz: float = math.nan
    _lanczos: tuple | None = field(default=None, repr=False)  # (t, λ, eigenvector, point) of the last check

    def __call__(self, t, point, grad_norm, rho):
        """Whether the run at step ``t`` (its point, ‖g‖, ρ) is certified; runs a Lanczos check only
        when (M13) is expected to hold or the floor of (M14) is reached."""
        if grad_norm > self.check_grad:
            self._window = None  # the decay is measured only over an uninterrupted stretch
            return False
        self._observe(t, point, grad_norm)
        if self._lanczos is not None and t < self._lanczos[0] + self.check_every:
            return False
        tol = self._tolerance(rho)
        floor = self.grad_floor > 0 and grad_norm <= self.grad_floor
        if not floor and not self._expected(point, grad_norm, tol):
            return False
        return self._check(t, point, grad_norm, floor, tol)

    def _tolerance(self, rho):
        """The change of ρ (M13) may certify: ρ_tol, or less where ρ is within ρ_tol of a level
        (half the distance, so the minimum stays on ρ's side); 0 between the two levels."""
        if rho < self.rho_low:
            margin = self.rho_low - rho
        elif rho >= self.rho_high:
            margin = rho - self.rho_high
        else:
            return 0.0
        return min(self.rho_tol, 0.5 * margin)

    def _observe(self, t, point, grad_norm):
        """Close a window of ``check_every`` steps: λ̂ from the gradient's decay, L̂ from its change."""
        if self._window is None:
            self._window = (t, grad_norm)
            return
        start, g0 = self._window
        if t - start < self.check_every:
            return
        self._window = (t, grad_norm)
        if g0 <= 0 or grad_norm <= 0:  # an exact stationary point: no decay to measure
            return
        rate = math.log(g0 / grad_norm) / (self.lr * (t - start))
        if self._rate is not None and rate > 0 and self._rate[0] > 0:
            self._update_lipschitz(rate, self._rate[0], point, self._rate[1])
        self._rate = (rate, point.copy())

    def _update_lipschitz(self, lam, previous_lam, point, previous_point):
        moved = float(np.linalg.norm(point - previous_point))
        if moved > 0:
            estimate = abs(lam - previous_lam) / moved
            self._lipschitz = estimate if math.isnan(self._lipschitz) else max(self._lipschitz, estimate)

    def _bound(self, point, lam, tol):
        """The largest ‖g‖ that (M13) accepts at curvature λ > 0 with ρ tolerance ``tol`` (0 without
        an L̂)."""
        if math.isnan(self._lipschitz) or tol <= 0:
            return 0.0
        weights = point if self.weights is None else self.weights(point)
        sigma = float(np.linalg.svd(weights, compute_uv=False).min())
        bound = tol * sigma * lam / (2 * self.safety * (1 + tol))  # (M12) ≤ tol
        if self._lipschitz > 0:
            bound = min(bound, lam**2 / (4 * self.safety * self._lipschitz))  # (M11)
        return bound

    def _expected(self, point, grad_norm, tol):
        """(M13) with the free λ̂ (capped by the last Lanczos λ) in place of λ."""
        if self._rate is None or self._rate[0] <= 0:
            return False
        lam = self._rate[0] if self._lanczos is None else min(self._rate[0], self._lanczos[1])
        return lam > 0 and grad_norm <= self._bound(point, lam, tol)

    def _check(self, t, point, grad_norm, floor, tol):
        """One Lanczos run: certified by (M13) with the measured λ, or by (M14) at the floor."""
        vector = self._lanczos[2] if self._lanczos is not None else None
        lam, vector = self.bottom(point, vector)
        lam *= self.loss_scale
        self.checks += 1
        if self._lanczos is not None and lam > 0 and self._lanczos[1] > 0:
            self._update_lipschitz(lam, self._lanczos[1], point, self._lanczos[3])
        self._lanczos = (t, lam, vector, point.copy())
        if lam <= 0:
            return False
        if grad_norm <= self._bound(point, lam, tol):
            self.certified_by = "kantorovich"
        elif floor:
            self.certified_by = "floor"
        return self.certified_by is not None
