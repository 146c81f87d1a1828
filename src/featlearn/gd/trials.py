"""One sweep cell: all trials of (experiment, activation, d, δ), each from its own derived seed
(docs/model.md: data (M1), initialisation (M5), GD (M4), success by (M8), "Seeds and thresholds";
the spectral initialisation: docs/spectral.md, eq. (S5)).

A trial's identity is (seed, experiment, activation, d, δ, trial); ``seeds.trial_generators``
turns it into independent streams for training data, test data and initialisation, so a trial
can be regenerated bit for bit with :func:`trial_setup`.
"""

import math
import time

import numpy as np

from featlearn.gd import engine as gd
from featlearn.gd.certificate import MinimumCertificate
from featlearn.io.results import stack_runs
from featlearn.model import data as data_mod
from featlearn.model import hessian_spectrum as hessian
from featlearn.model import network, population, seeds
from featlearn.model.links import get_link
from featlearn.model.loss import is_square, loss_of
from featlearn.spectral import method as spectral


def sample_count(delta, d):
    """n = round(δ·d)."""
    return int(round(delta * d))


def initial_weights(rng, m, d, r0):
    """Random init: θ_j(0) ~ N(0, (r₀²/d) I_d), j = 1..m."""
    return rng.standard_normal((m, d)) * (r0 / np.sqrt(d))


def spectral_initial_weights(rng, m, d, r0, x, y, link, noise):
    """Spectral init: θ_1(0) = ±r₀·v̂, neurons 2..m random as in :func:`initial_weights`.

    v̂ is the optimal spectral estimator (``spectral``) from the trial's own training data (x, y),
    the sign is random; ‖θ_1(0)‖ = r₀, the norm a random init has on average, so the two inits
    differ only in direction.
    """
    theta = initial_weights(rng, m, d, r0)
    v = spectral.spectral_estimator(x, y, spectral.SingleIndexLaw(link, noise), x.shape[0] / d)
    theta[0] = (1.0 if rng.random() < 0.5 else -1.0) * r0 * v
    return theta


def broadcast(value, m):
    """A fixed second-layer or bias vector of length m from a scalar or a list."""
    v = np.broadcast_to(np.asarray(value, dtype=np.float64), (m,))
    return np.array(v)


LOSS_SCALES = {
    "none": lambda y: 1.0,
    "variance": lambda y: 1.0 / np.var(y),
    "second_moment": lambda y: 1.0 / np.mean(y**2),
}
"""The factor s of the training risk s·(1/2n) Σ (y_i − f(x_i))² per ``loss_normalisation``, from
the training labels: 1, 1/Var(y) or 1/E[y²].  (A constant s is the same as η·s: the gradient
step is η·s·∇R̂.)"""


def loss_scale(settings, y):
    """s of ``LOSS_SCALES`` for the trial's training labels ``y``."""
    return LOSS_SCALES[settings.loss_normalisation](y)


def trial_identity(settings, d, delta, trial):
    return (settings.seed, settings.experiment, settings.activation, int(d), float(delta), int(trial))


def trial_setup(settings, d, delta, trial):
    """(data, network at its start) of one trial, regenerated from its identity."""
    gens = seeds.trial_generators(*trial_identity(settings, d, delta, trial))
    data = data_mod.trial_data(
        gens,
        sample_count(delta, d),
        d,
        settings.n_test,
        settings.link,
        settings.theta_star,
        settings.noise,
        np.dtype(settings.dtype),
    )
    return data, start(settings, gens["init"], data)


def start(settings, rng, data):
    """The network at its start on ``data``: Θ(0) drawn from ``rng`` by the settings' init (random
    or spectral), a and b fixed."""
    m, d = settings.m, data["X"].shape[1]
    if settings.init == "spectral":
        theta0 = spectral_initial_weights(
            rng, m, d, settings.r0, data["X"], data["y"], settings.link, settings.noise
        )
    else:
        theta0 = initial_weights(rng, m, d, settings.r0)
    return gd.Network(settings.activation, theta0, broadcast(settings.a, m), broadcast(settings.b, m))


def fresh_start(settings, d, delta, trial, data, label):
    """The trial's network started afresh on its own ``data``: Θ(0) drawn as :func:`trial_setup` draws
    it, from the init stream of the identity (trial, ``label``): reproducible, and independent of the
    trial's own start for a random init (a spectral init shares its first neuron's direction v̂, a
    function of the data, up to sign)."""
    gens = seeds.trial_generators(*trial_identity(settings, d, delta, trial), label)
    return start(settings, gens["init"], data)


def certificate(settings, data, net, loss_scale, train=("theta",)):
    """The certificate (M13) of a sweep trial (``gd.certificate``), its Lanczos runs on the trial's
    own data, on the Hessian in every trained parameter (``train``, (M7a)); None when the settings
    have no ``certify_check_grad`` (no early stopping)."""
    check_grad = getattr(settings, "certify_check_grad", None)
    if check_grad is None:
        return None

    loss = loss_of(settings)

    def unpack(point):
        """(Θ, a, b) of the certificate's point (``network.pack_point``)."""
        return network.unpack_point(point, np.shape(net.theta0), train, net.a, net.b)

    def bottom(point, start):
        theta, a, b = unpack(point)
        return hessian.bottom_eigenpair(
            data["X"], data["y"], theta, a, b, net.activation, v0=start, tol=1e-4, loss=loss, train=train
        )

    return MinimumCertificate(
        bottom,
        weights=lambda point: unpack(point)[0],
        lr=settings.lr,
        loss_scale=loss_scale,
        check_grad=check_grad,
        check_every=settings.certify_every,
        # the Kantorovich certificate's Lipschitz bound (M13) is the square loss's (Huber's Hessian
        # even jumps where a residual crosses ±κ_H): for any other loss the floor rule (M14) alone
        # stops failed trials
        safety=settings.certify_safety if is_square(loss) else math.inf,
        rho_tol=settings.certify_rho_tol,
        rho_low=min(settings.escape_rho, settings.success_rho),
        rho_high=settings.success_rho,
        grad_floor=settings.certify_grad_floor,
    )


def population_risk_of(settings, data, net):
    """(Θ, a, b) ↦ the exact population risk of the trial's target and network (``model.population``)."""

    def risk(theta, a, b):
        return population.population_risk(
            theta, a, b, net.activation, data["theta_star"], settings.link, settings.noise
        )

    return risk


def schedule(settings, data, net, freeze=True, grid=None):
    """The GD schedule of ``settings`` (``gd.engine.Schedule``): its η, step budget, recording grid
    (``grid``, by default the log grid of ``record_points``), freeze/escape levels, loss scale, the
    trained layers and the loss (sweep cells; Θ and the square loss otherwise), the certified early
    stopping at a local minimum (:func:`certificate`, in every trained parameter), and for the square
    loss the exact population risk as test loss (another loss's test loss is ρ on the trial's test
    samples)."""
    scale = loss_scale(settings, data["y"])
    train = tuple(getattr(settings, "train", ("theta",)))
    loss = loss_of(settings)
    return gd.Schedule(
        lr=settings.lr,
        steps=settings.steps,
        grid=gd.log_grid(settings.steps, settings.record_points) if grid is None else grid,
        freeze_rho=settings.freeze_rho if freeze else None,
        escape_rho=settings.escape_rho,
        loss_scale=scale,
        certificate=certificate(settings, data, net, scale, train),
        test_risk=population_risk_of(settings, data, net) if is_square(loss) else None,
        train=train,
        loss=loss,
    )


def run_trial(settings, d, delta, trial, freeze=True):
    """Run one trial's GD and return its Trajectory."""
    data, net = trial_setup(settings, d, delta, trial)
    return gd.run(data, net, schedule(settings, data, net, freeze))


TRIAL_FIELDS = (
    "train_loss",
    "test_loss",
    "sampled_test_loss",
    "rho",
    "norm",
    "grad_norm",
    "direction_overlap",
    "neuron_overlap",
)
FINAL_FIELDS = (
    "final_step",
    "final_rho",
    "final_train_loss",
    "final_test_loss",
    "escape_step",
    "frozen",
    "diverged",
    "stop_reason",
    "final_a",
    "final_b",
)


def run_cell(settings, d, delta, log=print):
    """Trials ``settings.first_trial`` … ``first_trial + trials − 1`` of one cell (a block; all of
    them when ``first_trial`` is 0 and ``trials`` the cell's), stacked into arrays (leading axis =
    trial).  Each trial draws from its own seed (its index in the cell), so blocks concatenate to
    the cell bit for bit (``io.results.concatenate_blocks``)."""
    runs = []
    start = time.perf_counter()
    first, n_trials = settings.first_trial, settings.trials
    for i, trial in enumerate(range(first, first + n_trials)):
        traj = run_trial(settings, d, delta, trial)
        runs.append({name: getattr(traj, name) for name in TRIAL_FIELDS + FINAL_FIELDS})
        log(
            f"trial {trial} ({i + 1}/{n_trials} done, {n_trials - i - 1} remaining): "
            f"steps={traj.final_step} rho={traj.final_rho:.3f} escape_step={traj.escape_step} "
            f"diverged={traj.diverged} elapsed={time.perf_counter() - start:.1f}s"
        )
    out = stack_runs(runs, steps=traj.steps, d=d, delta=delta, k=get_link(settings.link).k)
    out["success"] = (out["final_rho"] >= settings.success_rho) & ~out["diverged"]
    return out
