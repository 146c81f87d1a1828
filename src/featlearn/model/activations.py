"""Activation functions σ with their first and second derivatives in closed form (docs/model.md, eq. (M2)).

Every activation is one branch of :func:`activation`, a numba scalar function returning the triple
(σ(z), σ′(z), σ″(z)); the GD and Hessian kernels call it with an integer code, so one compiled
kernel (cached on disk) serves every activation.  The kernel and the name → code map
``ACTIVATIONS`` are generated code (``featlearn.model.compiled``): each activation is a sympy
expression in ``featlearn.model.catalogue.BUILT_IN``, differentiated symbolically.  To add an
activation: add its expression there and run ``python -m featlearn.model.catalogue``, or give it in
the config (``activations:``): a job of such an activation runs a generated module of its own, the
built-ins and that entry.

Closed forms (φ, Φ the standard normal density and distribution function):

* ``gelu``  σ = zΦ(z),        σ′ = Φ(z) + zφ(z),   σ″ = φ(z)(2 − z²)   (exact erf form)
* ``quad``  σ = z²,           σ′ = 2z,             σ″ = 2
* ``relu``  σ = max(z, 0),    σ′ = 1[z > 0],       σ″ = 0              (a.e.)
* ``tanh``  σ = tanh z,       σ′ = 1 − σ²,         σ″ = −2σ(1 − σ²)
* ``erf``   σ = erf z,        σ′ = 2e^{−z²}/√π,    σ″ = −2zσ′
* ``he2``   σ = z² − 1,       σ′ = 2z,             σ″ = 2              (second Hermite polynomial)
"""

import numpy as np
from numba import njit

from featlearn.model.compiled import ACTIVATIONS, activation


@njit(cache=True, fastmath=False)
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
