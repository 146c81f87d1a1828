"""Full-batch gradient descent on the empirical square (or Huber's) loss, with recording (docs/model.md,
eq. (M4); the alignment (M8); "Recording, early stopping and test loss").

Θ^{t+1} = Θ^t − η·s·∇R̂(Θ^t), with s = 1 (or 1/Var(y) when the loss is normalised by the variance of y);
with a trainable second layer (``Schedule.train``, docs/model.md, eq. (M4a)) a and b take the same step
on their gradients (Ga), (Gb), a^{t+1} = a^t − η·s·∂R̂/∂a. The gradient comes from the fused kernel (one
read of X per step). At every step the alignment ρ(Θ^t) is computed (O(md)), which fixes the escape step
(first t with ρ ≥ ``escape_rho``) exactly and freezes the trial once ρ ≥ ``freeze_rho``. On a log-spaced
grid of steps the engine records train loss, test loss, ρ, ‖Θ‖_F, ‖∇R̂‖_F and, per teacher direction,
its overlap with span(Θ) and with the best single neuron (``model.metrics``). A non-finite loss or
gradient marks the trial as diverged at that step and ends it.

A run that ends at its step budget T is classified (docs/model.md, eq. (M15)): with g^t the
(loss-scaled) gradient in every trained parameter, it ends in a period-2 cycle (``stop_reason =
"cycle"``, the edge of stability) when

    ‖g^T + g^{T−1}‖ ≤ ``CYCLE_TOL``·‖g^T‖,   ‖g^T‖ > ``CYCLE_FLOOR``,

i.e. the step after next returns the iterate to within CYCLE_TOL of a step of where it was
(θ^{T+1} − θ^{T−1} = −η(g^T + g^{T−1})); otherwise ``"budget"``.  Along a linear mode with
contraction factor −q per step the left side is (1 − q)‖g^T‖, so CYCLE_TOL = 10⁻³ flags oscillations
that would take more than ~10³ steps to decay by e; a monotone approach gives ≈ (1 + q)‖g^T‖.  The
floor (10⁻⁸) keeps out runs converged to round-off, whose gradient changes sign at random.
"""

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from featlearn.gd import kernel as gd_kernel
from featlearn.model import metrics
from featlearn.model.activations import activation_code
from featlearn.model.layers import check_train, trains_second_layer
from featlearn.model.loss import SQUARE, Loss, is_square, loss_parts
from featlearn.model.network import pack_point, predict

CYCLE_TOL = 1e-3
"""The tolerance of the period-2 cycle test (M15)."""
CYCLE_FLOOR = 1e-8
"""The smallest ‖g^T‖ the cycle test (M15) accepts (above round-off)."""


def log_grid(steps, points):
    """Sorted unique integer steps 0, 1, …, ``steps``, about log-spaced, ``points`` at most."""
    grid = np.unique(np.round(np.geomspace(1, steps + 1, points) - 1).astype(int))
    return np.union1d(grid, [0, steps])


@dataclass
class Trajectory:
    """What one GD run recorded; arrays indexed like ``steps`` (NaN where not reached)."""

    steps: np.ndarray
    train_loss: np.ndarray
    test_loss: np.ndarray  # the population risk (exact) when the schedule has one, else sampled
    sampled_test_loss: np.ndarray  # the loss (½-MSE, or Huber's ρ) on the trial's fresh test samples
    rho: np.ndarray
    norm: np.ndarray
    grad_norm: np.ndarray
    direction_overlap: np.ndarray
    neuron_overlap: np.ndarray
    a_path: np.ndarray  # a^t per neuron, shape (grid, m): constant unless trained
    b_path: np.ndarray  # b^t per neuron, shape (grid, m)
    final_step: int = 0
    final_rho: float = np.nan
    final_train_loss: float = np.nan
    final_test_loss: float = np.nan
    escape_step: int = -1
    frozen: bool = False
    converged: bool = False
    diverged: bool = False
    stop_reason: str = "budget"  # budget | cycle | frozen | converged | certified_minimum | diverged
    theta: np.ndarray = field(default=None, repr=False)
    final_a: np.ndarray = field(default=None, repr=False)  # the second layer at the end (a⁰, b⁰ if fixed)
    final_b: np.ndarray = field(default=None, repr=False)


def _new_trajectory(grid, k, m):
    nan = np.full(grid.size, np.nan)
    return Trajectory(
        steps=grid,
        train_loss=nan.copy(),
        test_loss=nan.copy(),
        sampled_test_loss=nan.copy(),
        rho=nan.copy(),
        norm=nan.copy(),
        grad_norm=nan.copy(),
        direction_overlap=np.full((grid.size, k), np.nan),
        neuron_overlap=np.full((grid.size, k), np.nan),
        a_path=np.full((grid.size, m), np.nan),
        b_path=np.full((grid.size, m), np.nan),
    )


@dataclass(frozen=True)
class Network:
    """The network f(x) = (1/m) Σ_j a_j σ(θ_jᵀx + b_j) at its start: Θ(0) (m×d), a⁰ and b⁰."""

    activation: str
    theta0: np.ndarray
    a: np.ndarray
    b: np.ndarray


@dataclass(frozen=True)
class Schedule:
    """How GD runs: Θ ← Θ − η·s·∇R̂ for ``steps`` steps, recording on ``grid``.

    ``freeze_rho=None`` never freezes; ``loss_scale`` is s (1, or 1/Var y).  Restricted GD: with
    ``restrict`` = U ∈ R^{d×h} (orthonormal hard directions) the hard component is removed from
    Θ(0) and from every gradient, Θ ← Θ − η ∇R̂ (I − UUᵀ), so it stays exactly zero.
    ``grad_tol`` stops the run once ‖∇R̂‖_F ≤ grad_tol (``Trajectory.converged``).
    ``train`` names the trained parameters: ``("theta",)`` (a and b fixed) or with ``"a"`` and/or
    ``"b"``; the gradient norm is then that of every trained parameter.  ``loss``: the loss ρ
    (a ``featlearn.model.loss.Loss``: the square loss, Huber's or a config loss; docs/model.md,
    eq. (M3a)), for the training and the sampled test loss alike.
    ``test_risk`` ((Θ, a, b) ↦ the population risk, ``model.population``) gives the exact test loss;
    the loss on the trial's fresh test samples is recorded beside it as a check.

    Certified early stopping: with ``certificate`` (a ``gd.certificate.MinimumCertificate``), a
    trial stops with ``stop_reason = "certified_minimum"`` once the certificate proves a strict
    local minimum close enough that GD converges into it, with its ρ within the certificate's
    tolerance and on one side of the success level (docs/model.md, eq. (M13)); with a trained
    second layer its point is every trained parameter (``network.pack_point``, Hessian (M7a)).
    """

    lr: float
    steps: int
    grid: np.ndarray
    freeze_rho: float | None = None
    escape_rho: float = 0.5
    loss_scale: float = 1.0
    restrict: np.ndarray | None = None
    grad_tol: float | None = None
    certificate: Callable[[int, np.ndarray, float, float], bool] | None = None
    test_risk: Callable[[np.ndarray, np.ndarray, np.ndarray], float] | None = None
    train: tuple = ("theta",)
    loss: Loss = SQUARE

    def __post_init__(self):
        check_train(self.train)
        if not is_square(self.loss) and self.test_risk is not None:
            raise ValueError("the exact test risk is the square loss's")


def two_cycle(before, last):
    """(M15): whether the gradients at steps T − 1 and T (``before``, ``last``, flat) cancel like a
    period-2 cycle's, ‖g^T + g^{T−1}‖ ≤ CYCLE_TOL·‖g^T‖ with ‖g^T‖ > CYCLE_FLOOR."""
    size = np.linalg.norm(last)
    return bool(size > CYCLE_FLOOR and np.linalg.norm(last + before) <= CYCLE_TOL * size)


def run(data, net, schedule, *, progress=None, checkpoint=None):
    """Run GD from ``net`` on ``data`` (see ``model.data.trial_data``) as ``schedule`` says; return
    a Trajectory.  ``progress(t)`` is called every step and ``checkpoint(t, Θ)`` at every
    recorded grid step, if given (with the second layer fixed: the checkpoints read Θ alone).
    """
    if checkpoint is not None and trains_second_layer(schedule.train):
        raise ValueError("checkpoints see Θ alone: they need a fixed second layer")
    activation, lr, steps, grid = net.activation, schedule.lr, schedule.steps, schedule.grid
    freeze_rho, escape_rho, loss_scale = schedule.freeze_rho, schedule.escape_rho, schedule.loss_scale
    restrict, grad_tol = schedule.restrict, schedule.grad_tol
    x, y, theta_star = data["X"], data["y"], data["theta_star"]
    code = activation_code(activation)
    theta = np.array(net.theta0, dtype=np.float64)
    if restrict is not None:
        theta -= (theta @ restrict) @ restrict.T
    a = np.array(net.a, dtype=np.float64).reshape(-1)
    b = np.array(net.b, dtype=np.float64).reshape(-1)
    second = [i for i, name in enumerate(("a", "b")) if name in schedule.train]
    buffers = gd_kernel.scratch(*theta.shape, x.dtype)
    grad, grad_ab = buffers.grad, buffers.grad_ab
    traj = _new_trajectory(grid, theta_star.shape[1], theta.shape[0])
    slot = {int(s): i for i, s in enumerate(grid)}
    previous = None  # the gradient at step T − 1 (none when T = 0), for the cycle test (M15)
    for t in range(steps + 1):
        loss = loss_scale * gd_kernel.risk_and_gradient(x, y, theta, a, b, code, buffers, schedule.loss)
        grad *= loss_scale
        grad_ab *= loss_scale
        if restrict is not None:
            grad -= (grad @ restrict) @ restrict.T
        rho = metrics.alignment(theta, theta_star)
        traj.final_step, traj.final_rho, traj.final_train_loss = t, rho, loss
        if not (np.isfinite(loss) and np.isfinite(grad).all() and np.isfinite(grad_ab).all()):
            traj.diverged, traj.stop_reason = True, "diverged"
            break
        if traj.escape_step < 0 and rho >= escape_rho:
            traj.escape_step = t
        frozen = freeze_rho is not None and rho >= freeze_rho
        grad_norm = math.hypot(np.linalg.norm(grad), np.linalg.norm(grad_ab[second]))
        converged = grad_tol is not None and grad_norm <= grad_tol
        traj.converged = converged
        certificate = schedule.certificate
        certified = certificate is not None and certificate(
            t, pack_point(theta, a, b, schedule.train), grad_norm, rho
        )
        stop = (
            "frozen" if frozen else "converged" if converged else "certified_minimum" if certified else None
        )
        if t in slot or stop or t == steps:
            residual = predict(data["X_test"], theta, a, b, activation) - data["y_test"]
            sampled = loss_scale * float(np.mean(loss_parts(residual, schedule.loss)[0]))
            exact = schedule.test_risk
            test_loss = loss_scale * exact(theta, a, b) if exact is not None else sampled
            traj.final_test_loss = test_loss
            if t in slot:
                i = slot[t]
                traj.train_loss[i], traj.test_loss[i], traj.rho[i] = loss, test_loss, rho
                traj.sampled_test_loss[i] = sampled
                traj.norm[i], traj.grad_norm[i] = np.linalg.norm(theta), grad_norm
                traj.direction_overlap[i] = metrics.direction_overlaps(theta, theta_star)
                traj.neuron_overlap[i] = metrics.neuron_overlaps(theta, theta_star)
                traj.a_path[i], traj.b_path[i] = a, b
                if checkpoint is not None:
                    checkpoint(t, theta)
        if stop:
            traj.frozen, traj.stop_reason = frozen, stop
            break
        if t >= steps - 1:  # the cycle test (M15) at the budget's end
            gradient = pack_point(grad, grad_ab[0], grad_ab[1], schedule.train)
            if t == steps - 1:
                previous = gradient.copy()  # a fixed layer's point is the buffer ``grad`` itself
            else:
                cycle = previous is not None and two_cycle(previous, gradient)
                traj.stop_reason = "cycle" if cycle else "budget"
        if t == steps:
            break
        theta -= lr * grad
        if "a" in schedule.train:
            a -= lr * grad_ab[0]
        if "b" in schedule.train:
            b -= lr * grad_ab[1]
        if progress is not None:
            progress(t)
    traj.theta, traj.final_a, traj.final_b = theta, a, b
    return traj
