"""Losses ρ of the residual, and the single-neuron loss with its z-derivatives, one definition for
the GD engine, the theory and the checks (docs/model.md, eq. (M3a) and the per-sample Hessian weight
after eq. (M7)).

Every loss is an entry of the catalogue (``featlearn.model.catalogue``: ``square``, ``huber`` and
the config's ``losses:``), compiled into the model kernel ``rho(code, e, kappa)`` → (ρ(e), ψ(e) =
ρ′(e), ρ″(e)); a :class:`Loss` names one by its code, with Huber's threshold κ_H (``kappa``, ∞ when
the loss has none).  The built-ins:

    square:  ρ(e) = e²/2,
    huber:   ρ(e) = e²/2 (|e| ≤ κ_H),  κ_H|e| − κ_H²/2 (|e| > κ_H),   ψ(e) = clip(e, −κ_H, κ_H).

With the residual e = aσ(z + b) − y of one neuron, ℓ(y, z) = ρ(e),

    ℓ′ = ψ(e)·aσ′(z + b),   ℓ″ = w = ρ″(e)·(aσ′(z + b))² + ψ(e)·aσ″(z + b)

(ℓ″ almost everywhere; the restricted GD residual r = ℓ′ and the Hessian weight w = ℓ″ of
docs/dmft.md, eq. (D5), and docs/outlier.md, eq. (O1)).  :func:`derivatives` is the numba scalar
(used inside the fixed point's prox); :func:`loss_derivatives` applies it elementwise to arrays.
"""

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from featlearn.model.activations import activation, activation_code
from featlearn.model.compiled import LOSSES, rho
from featlearn.model.loss_choice import loss_name


class Loss(NamedTuple):
    """A catalogue loss: its ``code`` in the model kernel and Huber's threshold ``kappa`` (∞: none)."""

    code: int
    kappa: float


def named_loss(name="square", kappa=math.inf):
    """The :class:`Loss` of catalogue entry ``name`` with threshold ``kappa``; a clear error for an
    unknown name."""
    try:
        return Loss(LOSSES[name], float(kappa))
    except KeyError:
        raise ValueError(f"unknown loss {name!r}; registered: {sorted(LOSSES)}") from None


SQUARE = named_loss("square")


def loss_of(settings):
    """The :class:`Loss` of a settings object (:func:`loss_name`, threshold its ``huber`` or ∞)."""
    kappa = getattr(settings, "huber", None)
    return named_loss(loss_name(settings), math.inf if kappa is None else kappa)


def is_square(loss):
    """Whether ``loss`` is the square loss (Huber's with κ_H = ∞ is)."""
    return loss.code == SQUARE.code or (loss.code == LOSSES["huber"] and math.isinf(loss.kappa))


@njit(cache=True, fastmath=False)
def derivatives(code, a, b, y, z, loss):
    """(ℓ, ℓ′, ℓ″) at one (y, z) for the activation with integer ``code`` and the :class:`Loss` ``loss``."""
    s, ds, d2s = activation(code, z + b)
    value, psi, curvature = rho(loss.code, a * s - y, loss.kappa)
    return value, psi * a * ds, curvature * (a * ds) ** 2 + psi * a * d2s


@njit(cache=True, fastmath=False)
def _derivative_arrays(code, a, b, y, z, loss):
    ell, d1, d2 = np.empty(z.size), np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        ell[i], d1[i], d2[i] = derivatives(code, a, b, y[i], z[i], loss)
    return ell, d1, d2


def loss_derivatives(activation_name, a, b, y, z, loss=SQUARE):
    """(ℓ, ℓ′, ℓ″) arrays for arrays y, z of the same shape (1-d)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    return _derivative_arrays(activation_code(activation_name), float(a), float(b), y, z, loss)


@njit(cache=True, fastmath=False)
def _second_layer_arrays(code, a, b, y, z, loss):
    da, db = np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        s, ds, _ = activation(code, z[i] + b)
        _, psi, _ = rho(loss.code, a * s - y[i], loss.kappa)
        da[i], db[i] = psi * s, psi * a * ds
    return da, db


def second_layer_derivatives(activation_name, a, b, y, z, loss=SQUARE):
    """(∂ℓ/∂a, ∂ℓ/∂b) = (ψ(e)σ(z + b), ψ(e)aσ′(z + b)) arrays (e = aσ(z + b) − y; ∂ℓ/∂b = ℓ′), the
    per-sample second-layer gradients (Ga), (Gb) for one neuron."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    return _second_layer_arrays(activation_code(activation_name), float(a), float(b), y, z, loss)


@njit(cache=True, fastmath=False)
def _residual_arrays(e, loss):
    value, psi, curvature = np.empty(e.size), np.empty(e.size), np.empty(e.size)
    for i in range(e.size):
        value[i], psi[i], curvature[i] = rho(loss.code, e[i], loss.kappa)
    return value, psi, curvature


def loss_parts(e, loss=SQUARE):
    """(ρ(e), ψ(e), ρ″(e)) elementwise for an array of residuals ``e`` (same shape as ``e``)."""
    e = np.asarray(e, dtype=np.float64)
    parts = _residual_arrays(np.ascontiguousarray(e).ravel(), loss)
    return tuple(part.reshape(e.shape) for part in parts)


def warm():
    """Compile the array kernels (``io.warmup``)."""
    z = np.linspace(-1.0, 1.0, 5)
    loss_derivatives("gelu", 1.0, 0.0, z, z)
    second_layer_derivatives("gelu", 1.0, 0.0, z, z)
    loss_parts(z)
