"""Full-batch gradient descent on the empirical square loss, with recording.

Θ^{t+1} = Θ^t − η·s·∇R̂(Θ^t), with s = 1 (or 1/Var(y) when the loss is normalised by the
variance of y).  The gradient comes from the fused kernel (one read of X per step).  At every
step the alignment ρ(Θ^t) is computed (O(md)), which fixes the escape step (first t with
ρ ≥ ``escape_rho``) exactly and freezes the trial once ρ ≥ ``freeze_rho``.  On a log-spaced grid
of steps the engine records train loss, test loss, ρ, ‖Θ‖_F, ‖∇R̂‖_F and the direction overlaps.
A non-finite loss or gradient marks the trial as diverged at that step and ends it.
"""

from dataclasses import dataclass, field

import numpy as np

from . import gd_kernel, metrics
from .activations import activation_code
from .network import predict


def log_grid(steps, points):
    """Sorted unique integer steps 0, 1, …, ``steps``, about log-spaced, ``points`` at most."""
    grid = np.unique(np.round(np.geomspace(1, steps + 1, points) - 1).astype(int))
    return np.union1d(grid, [0, steps])


@dataclass
class Trajectory:
    """What one GD run recorded; arrays indexed like ``steps`` (NaN where not reached)."""

    steps: np.ndarray
    train_loss: np.ndarray
    test_loss: np.ndarray
    rho: np.ndarray
    norm: np.ndarray
    grad_norm: np.ndarray
    direction_overlap: np.ndarray
    final_step: int = 0
    final_rho: float = np.nan
    final_train_loss: float = np.nan
    final_test_loss: float = np.nan
    escape_step: int = -1
    frozen: bool = False
    diverged: bool = False
    theta: np.ndarray = field(default=None, repr=False)


def _new_trajectory(grid, k):
    nan = np.full(grid.size, np.nan)
    return Trajectory(
        steps=grid,
        train_loss=nan.copy(),
        test_loss=nan.copy(),
        rho=nan.copy(),
        norm=nan.copy(),
        grad_norm=nan.copy(),
        direction_overlap=np.full((grid.size, k), np.nan),
    )


def run(
    data,
    theta0,
    a,
    b,
    activation,
    lr,
    steps,
    grid,
    freeze_rho=None,
    escape_rho=0.5,
    loss_scale=1.0,
    progress=None,
):
    """Run GD from ``theta0`` (m×d) on ``data`` (see ``data.trial_data``); return a Trajectory.

    ``freeze_rho=None`` never freezes; ``progress(t)`` is called every step if given.
    """
    x, y, theta_star = data["X"], data["y"], data["theta_star"]
    code = activation_code(activation)
    theta = np.array(theta0, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    grad, partial = gd_kernel.scratch(*theta.shape, x.dtype)
    traj = _new_trajectory(grid, theta_star.shape[1])
    slot = {int(s): i for i, s in enumerate(grid)}
    for t in range(steps + 1):
        loss = loss_scale * gd_kernel.risk_and_gradient(x, y, theta, a, b, code, grad, partial)
        grad *= loss_scale
        rho = metrics.alignment(theta, theta_star)
        traj.final_step, traj.final_rho, traj.final_train_loss = t, rho, loss
        if not (np.isfinite(loss) and np.isfinite(grad).all()):
            traj.diverged = True
            break
        if traj.escape_step < 0 and rho >= escape_rho:
            traj.escape_step = t
        frozen = freeze_rho is not None and rho >= freeze_rho
        if t in slot or frozen or t == steps:
            test_loss = (
                loss_scale
                * 0.5
                * np.mean((predict(data["X_test"], theta, a, b, activation) - data["y_test"]) ** 2)
            )
            traj.final_test_loss = test_loss
            if t in slot:
                i = slot[t]
                traj.train_loss[i], traj.test_loss[i], traj.rho[i] = loss, test_loss, rho
                traj.norm[i], traj.grad_norm[i] = np.linalg.norm(theta), np.linalg.norm(grad)
                traj.direction_overlap[i] = metrics.direction_overlaps(theta, theta_star)
        if frozen:
            traj.frozen = True
            break
        if t == steps:
            break
        theta -= lr * grad
        if progress is not None:
            progress(t)
    traj.theta = theta
    return traj
