"""Certified early stopping of a GD trial at a local minimum (docs/model.md, eqs. (M11)–(M13)).

A trial that sits near a strict local minimum of R̂ stays there: GD with a stable step converges
into that minimum, so neither a failure (it will not escape later) nor a success (it will not lose
its alignment) can change.  The certificate proves the minimum close
enough, before GD has crawled all the way into it (the last stretch is linear convergence at the
rate 1 − ηλ_min, hundreds to thousands of steps when λ_min is small).

At Θ with (loss-scaled) gradient g = s∇R̂(Θ) and smallest Hessian eigenvalue λ = s·λ_min(∇²R̂(Θ)) > 0
(Lanczos), and L the Lipschitz constant of the Hessian near Θ, Kantorovich's theorem for
Newton's method on ∇R̂ = 0 says: if

    h = L‖g‖/λ² ≤ 1/4,                                                                   (M11)

there is a critical point Θ* with ‖Θ* − Θ‖ ≤ r = 2‖g‖/λ, and the Hessian stays ⪰ (λ − 2Lr)·I ≻ 0
on the ball of radius 2r around Θ, so Θ* is a strict local minimum and GD from Θ (a contraction
towards Θ* in that ball) converges to it without leaving the ball.  The alignment moves by at most

    |ρ(Θ*) − ρ(Θ)| ≤ Δρ = r/(σ_min(Θ) − r),                                               (M12)

σ_min(Θ) the smallest singular value of the m×d weight matrix (for m = 1, ‖θ‖: θ ↦ θ/‖θ‖ is
1/‖θ‖-Lipschitz).  L is not known; it is estimated from the last two checks,
L̂ = |λ_k − λ_{k−1}|/‖Θ_k − Θ_{k−1}‖ (the change of the soft eigenvalue along GD's own path, a lower
estimate), and a safety factor κ inflates both L̂ and r.  The trial is certified when

    κL̂‖g‖/λ² ≤ 1/4,   κr/(σ_min(Θ) − κr) ≤ ρ_tol   and   ρ(Θ) + ρ_tol < ρ_limit,          (M13)

ρ_limit the lower of the escape and success levels: the outcome (a failure) is then settled and the
recorded final ρ is within ρ_tol of the minimum's.  The first check waits until ‖g‖ ≤ ``check_grad``;
the next one comes once ‖g‖ has reached the bound (M13) asks for, or after the number of steps
linear convergence at rate 1 − ηλ needs to get there, whichever is first (and at least
``check_every`` steps later), so a trial costs a few Lanczos runs, each warm-started from the
last eigenvector.  benchmarks/early_certificate.py validates (M13) against
runs continued to ‖∇R̂‖ ≤ 10⁻⁶.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass
class MinimumCertificate:
    """The certificate (M13) of one run, with its state between checks.

    ``bottom(Θ, v0)`` returns (λ_min, eigenvector) of ∇²R̂(Θ) (unscaled; Lanczos started from v0,
    None at the first check); ``loss_scale`` is s and ``lr`` is η of the run.
    """

    bottom: Callable[[np.ndarray, np.ndarray | None], tuple[float, np.ndarray]]
    lr: float
    loss_scale: float = 1.0
    check_grad: float = 1e-3
    check_every: int = 100
    safety: float = 4.0
    rho_tol: float = 0.01
    rho_low: float = 0.5
    rho_high: float = 0.5
    checks: int = 0
    _next_check: int = 0
    _target: float = 0.0
    _last: tuple | None = field(default=None, repr=False)

    def __call__(self, t, theta, grad_norm, rho):
        """Whether the run at step ``t`` (weights Θ, ‖g‖, ρ) is certified by (M13); runs a Lanczos
        check only when one is due: at the scheduled step, or earlier once ‖g‖ has reached the
        bound the last check asked for (but never within ``check_every`` steps of it)."""
        settled = rho + self.rho_tol < self.rho_low or rho - self.rho_tol >= self.rho_high
        if grad_norm > self.check_grad or not settled:
            return False
        early = self._last is not None and t >= self._last[3] + self.check_every and grad_norm <= self._target
        if t < self._next_check and not early:
            return False
        vector = self._last[2] if self._last is not None else None
        lam, vector = self.bottom(theta, vector)
        lam *= self.loss_scale
        self.checks += 1
        previous, self._last = self._last, (theta.copy(), lam, vector, t)
        if lam <= 0:
            self._next_check, self._target = t + self.check_every, 0.0
            return False
        sigma = float(np.linalg.svd(theta, compute_uv=False).min())
        bound = self.rho_tol * sigma * lam / (2 * self.safety * (1 + self.rho_tol))  # (M12) ≤ ρ_tol
        if previous is not None:
            moved = float(np.linalg.norm(theta - previous[0]))
            lipschitz = self.safety * abs(lam - previous[1]) / moved if moved > 0 else math.inf
            if lipschitz > 0:
                bound = min(bound, lam**2 / (4 * lipschitz))  # (M11)
            if grad_norm <= bound:
                return True
        rate = -math.log1p(-min(self.lr * lam, 0.5))  # ‖g‖ shrinks like (1 − ηλ)^t, or faster
        wait = math.log(max(grad_norm / bound, 1.0)) / rate
        self._next_check = t + max(self.check_every, int(math.ceil(wait)))
        self._target = bound
        return False
