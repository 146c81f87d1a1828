"""The spectral-threshold scan's cells with every seed of a cell in lockstep on an array module:
NumPy, or CuPy on a GPU (``benchmarks/threshold_scan_gpu.py``), for the large-d overlays.

The same computation as :func:`featlearn.hessian.plateau.threshold_scan_run`, seed by seed, for a
single neuron (m = 1) with a fixed second layer and the square loss (docs/model.md, eqs. (M4), (G)):
restricted GD from the trial's own Θ(0) (``gd.trials.trial_setup``, the hard component removed),

    z_i = θᵀx_i + b,  e_i = a σ(z_i) − y_i,  R̂ = (1/2n) Σ e_i²,
    g = (1/n) Σ e_i a σ′(z_i) x_i,  g ← g − U(Uᵀg),                                        (G)

stopping at the first t with a non-finite R̂ or ‖g‖ (diverged), ‖g‖ ≤ grad_tol (converged) or
t = T, else θ ← θ − η g.  σ and σ′ are the catalogue's expressions (``model.catalogue``) printed for
the array module.  At the state reached: the Hessian H = (1/n) Xᵀ diag(w) X with w = ℓ″(y, θᵀx)
(docs/outlier.md, (O1)), formed on the array module and decomposed densely
(``model.hessian_spectrum.spectrum_of``; the CPU cells use Lanczos above md = 2500, to its
tolerance 10⁻⁸), and the semi-empirical outlier from the law of (g², w), g = Uᵀx
(``plateau.semi_empirical``).

What differs from the CPU cells is only the order of the floating-point sums (the numba kernel sums
in row blocks), so a seed's state agrees to rounding, its stopping step to ±1 where ‖g‖ crosses
grad_tol within rounding (tests/test_batched_plateau.py).  A seed's ``final_test_loss`` and losses
at the grid steps (0 and T) are the engine's (``gd.engine.run`` records them there).  The seeds of a
cell share n and d, so each step runs every active seed's two matrix–vector products and then reads
all gradient norms in one synchronisation; a finished seed drops out.
"""

import time
from dataclasses import dataclass, replace
from types import SimpleNamespace

import numpy as np
import sympy
from scipy import special

from featlearn.gd import trials
from featlearn.hessian.plateau import final_state_record, hard_directions, semi_empirical
from featlearn.io.results import stack_runs
from featlearn.model import catalogue, network
from featlearn.model.hessian_spectrum import spectrum_of
from featlearn.model.loss import SQUARE, loss_derivatives, loss_parts


def activation_functions(name, xp=np, erf=special.erf):
    """z ↦ (σ(z), σ′(z)) of the built-in activation ``name`` on arrays of ``xp`` (``erf``: that
    module's error function), printed from the catalogue's sympy expression (``catalogue.BUILT_IN``)."""
    if name not in catalogue.BUILT_IN:
        raise ValueError(f"batched cells run the built-in activations only, not {name!r}")
    sigma, dsigma, _ = catalogue.derivatives(catalogue.parse(catalogue.BUILT_IN[name]))
    if xp is not np and sigma.has(sympy.Piecewise):
        raise ValueError(f"{name!r} is piecewise: NumPy only (sympy prints it with numpy.select)")
    # constants folded to floats (17 digits: the nearest double): CuPy's functions take no Python numbers
    pair = sympy.lambdify(catalogue.z, [sigma.evalf(17), dsigma.evalf(17)], modules=[{"erf": erf}, xp])

    def both(z):
        s, ds = pair(z)
        return s + 0 * z, ds + 0 * z  # a constant derivative as an array of z's shape

    return both


@dataclass
class Seed:
    """One trial of a cell (``gd.trials.trial_setup``), as host arrays: X, y, the hard directions
    U (d×h), the restricted Θ(0) (a d-vector), the second layer a, b and the test set."""

    seed_index: int
    x: np.ndarray
    y: np.ndarray
    hard: np.ndarray
    theta0: np.ndarray
    a: float
    b: float
    x_test: np.ndarray
    y_test: np.ndarray

    @classmethod
    def setup(cls, settings, delta, seed_index):
        data, net = trials.trial_setup(settings, settings.d, delta, seed_index)
        u = hard_directions(data["theta_star"], settings.link)
        if net.theta0.shape[0] != 1 or u.shape[1] != 1:
            raise ValueError("batched cells are single-neuron (m = 1) with one hard direction")
        theta = np.array(net.theta0[0], dtype=np.float64)
        theta -= u @ (u.T @ theta)
        x = np.asarray(data["X"], dtype=np.float64)
        a, b = float(net.a[0]), float(net.b[0])
        return cls(seed_index, x, data["y"], u, theta, a, b, data["X_test"], data["y_test"])


def restricted_gd(seeds, sigma, lr, steps, grad_tol, xp=np):
    """Restricted GD (module docstring) of ``seeds`` — each with xp arrays ``x`` (n×d), ``y``,
    ``hard`` (d×1), ``theta0`` and floats ``a``, ``b`` — in lockstep; per seed a dict: the final θ
    (xp array), ``final_step``, ``converged``, ``diverged`` and the training loss and ‖θ‖ at t = 0
    and t = T (``loss_grid``, ``norm_grid``; NaN unless reached) and at the end.

    Per step: each active seed's z = Xθ and g = Xᵀc/n (two matrix–vector products), everything
    else on the stacked (seeds × n) and (seeds × d) arrays, and one read of the losses and norms."""
    out = [{"loss_grid": [np.nan, np.nan], "norm_grid": [np.nan, np.nan]} for _ in seeds]
    active = list(range(len(seeds)))
    theta = xp.stack([s.theta0 for s in seeds])
    y, u = xp.stack([s.y for s in seeds]), xp.stack([s.hard[:, 0] for s in seeds])
    a, b = (xp.asarray([[getattr(s, name)] for s in seeds]) for name in ("a", "b"))
    for t in range(steps + 1):
        xs = [seeds[i].x for i in active]
        value, slope = sigma(xp.stack([x @ th for x, th in zip(xs, theta, strict=True)]) + b)
        e = a * value - y
        g = xp.stack([c @ x for c, x in zip(e * (a * slope), xs, strict=True)]) / e.shape[1]
        g -= (g * u).sum(axis=1, keepdims=True) * u
        norms = [
            0.5 * (e * e).sum(axis=1) / e.shape[1],
            xp.linalg.norm(g, axis=1),
            xp.linalg.norm(theta, axis=1),
        ]
        keep = []
        for row, (i, (loss, grad_norm, norm)) in enumerate(
            zip(active, _host(xp.stack(norms), xp).T, strict=True)
        ):
            rec = out[i]
            rec.update(final_step=t, final_train_loss=float(loss), converged=False, diverged=False)
            if not (np.isfinite(loss) and np.isfinite(grad_norm)):
                rec["diverged"] = True
            else:
                rec["converged"] = bool(grad_norm <= grad_tol)
                if t in (0, steps):
                    rec["loss_grid"][t > 0], rec["norm_grid"][t > 0] = float(loss), float(norm)
            if rec["diverged"] or rec["converged"] or t == steps:
                rec["theta"] = theta[row].copy()
            else:
                keep.append(row)
        if not keep:
            break
        if len(keep) < len(active):  # finished seeds drop out
            rows = xp.asarray(keep)
            theta, g, y, u, a, b = (array[rows] for array in (theta, g, y, u, a, b))
            active = [active[row] for row in keep]
        theta = theta - lr * g
    return out


def on_device(seed, xp=np):
    """``seed``'s arrays on the array module (no copy for NumPy), the host :class:`Seed` beside them."""
    arrays = {name: xp.asarray(getattr(seed, name)) for name in ("x", "y", "hard", "theta0")}
    return SimpleNamespace(**arrays, a=seed.a, b=seed.b, host=seed)


def state_arrays(dev, theta, activation, xp=np):
    """At θ (an xp array), as host arrays: H = (1/n) Xᵀ diag(w) X (docs/outlier.md, (O1)), the hard
    projections G = XU (n×h) and w_i = ℓ″(y_i, θᵀx_i) (``model.loss.loss_derivatives``)."""
    z = _host(dev.x @ theta, xp)
    w = loss_derivatives(activation, dev.a, dev.b, dev.host.y, z, SQUARE)[2]
    hmat = dev.x.T @ (xp.asarray(w)[:, None] * dev.x) / w.size
    return _host(hmat, xp), _host(dev.x @ dev.hard, xp), w


def host_record(seed, result, hmat, hard_projection, w, settings, log=print, start=None):
    """The record of one seed (``plateau.final_state_record``) from its GD ``result``
    (:func:`restricted_gd`, θ on the host) and :func:`state_arrays`; NumPy only (a worker process
    can run it).  ``seed`` needs no X: its test set, Θ(0), a, b and U."""
    theta = result["theta"]

    def test_loss(th):
        residual = network.predict(seed.x_test, th[None, :], [seed.a], [seed.b], settings.activation)
        return float(np.mean(loss_parts(residual - seed.y_test, SQUARE)[0]))

    # the engine's last recorded test loss: at the end, or (diverged) at t = 0 if it got past it
    end_loss = test_loss(seed.theta0) if result["final_step"] > 0 else np.nan
    traj = SimpleNamespace(
        train_loss=np.array(result["loss_grid"]),
        norm=np.array(result["norm_grid"]),
        final_step=result["final_step"],
        converged=result["converged"],
        diverged=result["diverged"],
        final_train_loss=result["final_train_loss"],
        final_test_loss=end_loss if result["diverged"] else test_loss(theta),
        theta=theta[None, :],
    )
    final = spectrum_of(hmat, seed.hard, settings.k)
    n, d = hard_projection.shape[0], seed.hard.shape[0]
    semi, margin = semi_empirical(hard_projection[:, 0] ** 2, w, n, d)
    now = time.perf_counter() if start is None else start
    return final_state_record(traj, final, semi, margin, log, now, seed.seed_index)


def run_seeds(seeds, settings, xp=np, erf=special.erf, log=print, finish=None, timing=None):
    """Restricted GD of ``seeds`` (:class:`Seed`) in lockstep on ``xp`` and each one's record:
    ``finish(jobs)`` maps :func:`host_record` over the argument tuples ``jobs`` (e.g. a process
    pool's ``starmap``), in order, by default here.  ``timing`` (a dict), if given, receives the GD's
    seconds ``gd_s`` and its gradient evaluations summed over the seeds, ``evaluations``."""
    start = time.perf_counter()
    sigma = activation_functions(settings.activation, xp, erf)
    devices = [on_device(seed, xp) for seed in seeds]
    results = restricted_gd(devices, sigma, settings.lr, settings.steps, settings.grad_tol, xp)
    if timing is not None:
        timing["gd_s"] = time.perf_counter() - start
        timing["evaluations"] = sum(result["final_step"] + 1 for result in results)
    jobs = []
    for seed, dev, result in zip(seeds, devices, results, strict=True):
        arrays = state_arrays(dev, result["theta"], settings.activation, xp)
        light = replace(seed, x=None)  # what the record needs, without X
        jobs.append((light, {**result, "theta": _host(result["theta"], xp)}, *arrays, settings))
    if finish is None:
        return [host_record(*job, log=log, start=start) for job in jobs]
    return finish(jobs)


def threshold_scan_cell(settings, delta, xp=np, erf=special.erf, log=print):
    """A cell of the spectral-threshold scan (``plateau.threshold_scan_cell``'s arrays) with its
    seeds in lockstep on ``xp``."""
    seeds = [Seed.setup(settings, delta, i) for i in range(settings.seeds)]
    return stack_runs(run_seeds(seeds, settings, xp, erf, log), d=settings.d, delta=delta)


def _host(array, xp):
    """A host (NumPy) copy of an xp array."""
    return array.get() if hasattr(array, "get") else np.asarray(array)
