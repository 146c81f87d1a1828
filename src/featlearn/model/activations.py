"""Activation functions σ with their first and second derivatives in closed form (docs/model.md, eq. (M2)).

Every activation is one branch of :func:`activation`, a numba scalar function returning the triple
(σ(z), σ′(z), σ″(z)); the GD and Hessian kernels call it with an integer code, so one compiled
kernel (cached on disk) serves every activation.  To add an activation: add a branch below and a
name → code entry in ``ACTIVATIONS``.

Closed forms (φ, Φ the standard normal density and distribution function):

* ``gelu``  σ = zΦ(z),        σ′ = Φ(z) + zφ(z),   σ″ = φ(z)(2 − z²)   (exact erf form)
* ``quad``  σ = z²,           σ′ = 2z,             σ″ = 2
* ``relu``  σ = max(z, 0),    σ′ = 1[z > 0],       σ″ = 0              (a.e.)
* ``tanh``  σ = tanh z,       σ′ = 1 − σ²,         σ″ = −2σ(1 − σ²)
* ``erf``   σ = erf z,        σ′ = 2e^{−z²}/√π,    σ″ = −2zσ′
* ``he2``   σ = z² − 1,       σ′ = 2z,             σ″ = 2              (second Hermite polynomial)
"""

import math

import numpy as np
from numba import njit

ACTIVATIONS = {"gelu": 0, "quad": 1, "relu": 2, "tanh": 3, "erf": 4, "he2": 5}

_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


@njit(cache=True)
def activation(code, z):
    """Return (σ(z), σ′(z), σ″(z)) for the activation with integer ``code``."""
    if code == 0:
        phi = _INV_SQRT_2PI * math.exp(-0.5 * z * z)
        cdf = 0.5 * (1.0 + math.erf(z * _INV_SQRT_2))
        return z * cdf, cdf + z * phi, phi * (2.0 - z * z)
    if code == 1:
        return z * z, 2.0 * z, 2.0
    if code == 2:
        if z > 0.0:
            return z, 1.0, 0.0
        return 0.0, 0.0, 0.0
    if code == 3:
        t = math.tanh(z)
        return t, 1.0 - t * t, -2.0 * t * (1.0 - t * t)
    if code == 4:
        ds = _TWO_OVER_SQRT_PI * math.exp(-z * z)
        return math.erf(z), ds, -2.0 * z * ds
    if code == 5:
        return z * z - 1.0, 2.0 * z, 2.0
    return math.nan, math.nan, math.nan


@njit(cache=True)
def _activation_arrays(code, z):
    s = np.empty(z.size)
    ds = np.empty(z.size)
    d2s = np.empty(z.size)
    flat = z.ravel()
    for i in range(flat.size):
        s[i], ds[i], d2s[i] = activation(code, flat[i])
    return s, ds, d2s


def activation_code(name):
    """Integer code of a registered activation; a clear error for an unknown name."""
    try:
        return ACTIVATIONS[name]
    except KeyError:
        raise ValueError(f"unknown activation {name!r}; registered: {sorted(ACTIVATIONS)}") from None


def evaluate(name, z):
    """Vectorised (σ, σ′, σ″) of activation ``name`` on an array ``z`` (same shape as ``z``)."""
    z = np.asarray(z, dtype=np.float64)
    s, ds, d2s = _activation_arrays(activation_code(name), np.ascontiguousarray(z))
    return s.reshape(z.shape), ds.reshape(z.shape), d2s.reshape(z.shape)


def warm():
    """Compile the array kernel (``io.warmup``)."""
    evaluate("gelu", np.linspace(-1.0, 1.0, 5))
