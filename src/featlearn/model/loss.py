"""Single-neuron square loss and its z-derivatives, one definition for the theory and the checks
(docs/model.md, the per-sample Hessian weight after eq. (M7)).

ℓ(y, z) = (aσ(z + b) − y)²/2,   ℓ′ = e·aσ′(z + b),   ℓ″ = w = (aσ′(z + b))² + e·aσ″(z + b),
with e = aσ(z + b) − y (the restricted GD residual r = ℓ′ and the Hessian weight w = ℓ″ of
docs/dmft.md, eq. (D5), and docs/outlier.md, eq. (O1)).  :func:`derivatives` is the numba scalar
(used inside the fixed point's prox); :func:`loss_derivatives` applies it elementwise to arrays.
"""

import numpy as np
from numba import njit

from featlearn.model.activations import activation, activation_code


@njit(cache=True)
def derivatives(code, a, b, y, z):
    """(ℓ, ℓ′, ℓ″) at one (y, z) for the activation with integer ``code``."""
    s, ds, d2s = activation(code, z + b)
    e = a * s - y
    return 0.5 * e * e, e * a * ds, (a * ds) ** 2 + e * a * d2s


@njit(cache=True)
def _derivative_arrays(code, a, b, y, z):
    ell, d1, d2 = np.empty(z.size), np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        ell[i], d1[i], d2[i] = derivatives(code, a, b, y[i], z[i])
    return ell, d1, d2


def loss_derivatives(activation_name, a, b, y, z):
    """(ℓ, ℓ′, ℓ″) arrays for arrays y, z of the same shape (1-d)."""
    y = np.ascontiguousarray(y, dtype=np.float64)
    z = np.ascontiguousarray(z, dtype=np.float64)
    return _derivative_arrays(activation_code(activation_name), float(a), float(b), y, z)


def warm():
    """Compile the array kernel (``io.warmup``)."""
    z = np.linspace(-1.0, 1.0, 5)
    loss_derivatives("gelu", 1.0, 0.0, z, z)
