"""The exact finite-d referee of the hard-coordinate process (docs/escape.md, eq. (E7), "The exact
finite-d referee"; the code label (L) below is (E7)).

Let θ_R^t be restricted GD on a trial's data and initialisation (hard component removed) and
e^t = θ^t − θ_R^t the unrestricted run's departure from it.  To linear order in e,

    e^{t+1} = (I − η H(θ_R^t)) e^t − η F_t,   e⁰ = P θ(0),   F_t = P ∇R̂(θ_R^t)           (L)

with H the Hessian of the empirical risk, P = UUᵀ the projector on the hard directions and F_t
the hard part of the gradient that restricted GD removes (for θ* = e₁: F_t = (1/n) Σ r_i^t g_i e₁).
One Hessian-vector product per step.  Its hard coordinate √d Uᵀe^t is compared, trial by trial,
with √d Uᵀθ^t of the unrestricted run from the same seed.
"""

import numpy as np

from featlearn.gd import engine as gd
from featlearn.gd import trials
from featlearn.hessian.plateau import hard_directions
from featlearn.model import network


def hard_coordinate_runs(settings, d, delta, trial, steps):
    """(linearised, unrestricted) √d Uᵀθ^t of the first neuron and first hard direction, and the
    unrestricted ‖θ^t‖, t = 0..steps, for one trial (``settings``: any GD settings; never frozen)."""
    data, net = trials.trial_setup(settings, d, delta, trial)
    hard = hard_directions(data["theta_star"], settings.link)
    grid = np.arange(steps + 1)
    restricted, full, norms = [], [], []
    gd.run(
        data,
        net,
        gd.Schedule(lr=settings.lr, steps=steps, grid=grid, restrict=hard),
        checkpoint=lambda t, theta: restricted.append(theta.copy()),
    )
    gd.run(
        data,
        net,
        gd.Schedule(lr=settings.lr, steps=steps, grid=grid),
        checkpoint=lambda t, theta: (
            full.append(float(theta[0] @ hard[:, 0])),
            norms.append(np.linalg.norm(theta)),
        ),
    )
    x, y, a, b = np.asarray(data["X"], dtype=np.float64), data["y"], net.a, net.b
    project = hard @ hard.T
    e = np.asarray(net.theta0, dtype=np.float64) @ project
    linear = [float(e[0] @ hard[:, 0])]
    for theta in restricted[:steps]:
        kick = network.gradient(x, y, theta, a, b, net.activation) @ project
        e = e - settings.lr * (network.hessian_vector_product(x, y, theta, a, b, net.activation, e) + kick)
        linear.append(float(e[0] @ hard[:, 0]))
    return np.sqrt(d) * np.array(linear), np.sqrt(d) * np.array(full), np.array(norms)


def hard_coordinate_cell(settings, d, delta, n_trials, steps, log=print):
    """Both hard-coordinate series and the unrestricted norms of ``n_trials`` trials, shape
    (trials, steps + 1) each."""
    runs = []
    for trial in range(n_trials):
        runs.append(hard_coordinate_runs(settings, d, delta, trial, steps))
        log(f"trial {trial + 1}/{n_trials} done ({n_trials - trial - 1} remaining)")
    linear, full, norms = (np.array(series) for series in zip(*runs, strict=True))
    return {
        "d": d,
        "delta": delta,
        "steps": np.arange(steps + 1),
        "linear": linear,
        "unrestricted": full,
        "unrestricted_norm": norms,
    }
