"""Single-neuron loss and its z-derivatives, one definition for the theory and the checks
(docs/model.md, eq. (M3a) and the per-sample Hessian weight after eq. (M7)).

With the residual e = aσ(z + b) − y, the loss is the square loss or Huber's loss with threshold
κ_H (``huber``; κ_H = ∞ is the square loss):

    ρ(e) = e²/2 (|e| ≤ κ_H),  κ_H|e| − κ_H²/2 (|e| > κ_H),   ψ(e) = ρ′(e) = clip(e, −κ_H, κ_H),

    ℓ(y, z) = ρ(e),   ℓ′ = ψ(e)·aσ′(z + b),   ℓ″ = w = 1[|e| ≤ κ_H]·(aσ′(z + b))² + ψ(e)·aσ″(z + b)

(ℓ″ almost everywhere; the restricted GD residual r = ℓ′ and the Hessian weight w = ℓ″ of
docs/dmft.md, eq. (D5), and docs/outlier.md, eq. (O1)).  :func:`derivatives` is the numba scalar
(used inside the fixed point's prox); :func:`loss_derivatives` applies it elementwise to arrays.
"""

import math

import numpy as np
from numba import njit

from featlearn.model.activations import activation, activation_code


@njit(cache=True)
def huber(e, threshold):
    """(ρ(e), ψ(e), ρ″(e)) of Huber's loss with threshold κ_H (the square loss for κ_H = ∞)."""
    if abs(e) <= threshold:
        return 0.5 * e * e, e, 1.0
    psi = threshold if e > 0 else -threshold
    return threshold * abs(e) - 0.5 * threshold * threshold, psi, 0.0


@njit(cache=True)
def derivatives(code, a, b, y, z, threshold=math.inf):
    """(ℓ, ℓ′, ℓ″) at one (y, z) for the activation with integer ``code``."""
    s, ds, d2s = activation(code, z + b)
    rho, psi, curvature = huber(a * s - y, threshold)
    return rho, psi * a * ds, curvature * (a * ds) ** 2 + psi * a * d2s


@njit(cache=True)
def _derivative_arrays(code, a, b, y, z, threshold):
    ell, d1, d2 = np.empty(z.size), np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        ell[i], d1[i], d2[i] = derivatives(code, a, b, y[i], z[i], threshold)
    return ell, d1, d2


def loss_derivatives(activation_name, a, b, y, z, huber=math.inf):
    """(ℓ, ℓ′, ℓ″) arrays for arrays y, z of the same shape (1-d)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    return _derivative_arrays(activation_code(activation_name), float(a), float(b), y, z, float(huber))


@njit(cache=True)
def _second_layer_arrays(code, a, b, y, z, threshold):
    da, db = np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        s, ds, _ = activation(code, z[i] + b)
        _, psi, _ = huber(a * s - y[i], threshold)
        da[i], db[i] = psi * s, psi * a * ds
    return da, db


def second_layer_derivatives(activation_name, a, b, y, z, huber=math.inf):
    """(∂ℓ/∂a, ∂ℓ/∂b) = (ψ(e)σ(z + b), ψ(e)aσ′(z + b)) arrays (e = aσ(z + b) − y; ∂ℓ/∂b = ℓ′), the
    per-sample second-layer gradients (Ga), (Gb) for one neuron."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    return _second_layer_arrays(activation_code(activation_name), float(a), float(b), y, z, float(huber))


def huber_threshold(settings):
    """κ_H of the loss of a settings object: its ``huber``, or ∞ (the square loss) when None or when
    the settings have no such field."""
    value = getattr(settings, "huber", None)
    return math.inf if value is None else float(value)


def warm():
    """Compile the array kernel (``io.warmup``)."""
    z = np.linspace(-1.0, 1.0, 5)
    loss_derivatives("gelu", 1.0, 0.0, z, z)
    second_layer_derivatives("gelu", 1.0, 0.0, z, z)
