"""Activation functions σ with their first and second derivatives in closed form (docs/model.md, eq. (M2)).

Every activation is one branch of :func:`activation`, a numba scalar function returning the triple
(σ(z), σ′(z), σ″(z)); the GD and Hessian kernels call it with an integer code, so one compiled
kernel (cached on disk) serves every activation.  The kernel and the name → code map
``ACTIVATIONS`` are generated code (``_activation_kernel.py``): each activation is a sympy
expression in ``featlearn.model.catalogue.BUILT_IN``, differentiated symbolically.  To add an
activation: add its expression there and run ``python -m featlearn.model.catalogue``, or give it in
the config (``activations:``): a job of such an activation names its generated module, the built-ins
and that entry (``catalogue.config_kernel_source``), in ``FEATLEARN_ACTIVATION_KERNEL``, and this
module loads it instead of ``_activation_kernel`` when it is imported.

Closed forms (φ, Φ the standard normal density and distribution function):

* ``gelu``  σ = zΦ(z),        σ′ = Φ(z) + zφ(z),   σ″ = φ(z)(2 − z²)   (exact erf form)
* ``quad``  σ = z²,           σ′ = 2z,             σ″ = 2
* ``relu``  σ = max(z, 0),    σ′ = 1[z > 0],       σ″ = 0              (a.e.)
* ``tanh``  σ = tanh z,       σ′ = 1 − σ²,         σ″ = −2σ(1 − σ²)
* ``erf``   σ = erf z,        σ′ = 2e^{−z²}/√π,    σ″ = −2zσ′
* ``he2``   σ = z² − 1,       σ′ = 2z,             σ″ = 2              (second Hermite polynomial)
"""

import importlib.util
import os
import sys

import numpy as np
from numba import njit

from featlearn.io.job import ACTIVATION_KERNEL_ENV

CONFIG_KERNEL = "featlearn_config_activation_kernel"
"""The module name a config activation's kernel module is imported under (it lies outside the package)."""


def _load_kernel(path):
    """Import the kernel module at ``path`` (registered in ``sys.modules`` as ``CONFIG_KERNEL``)."""
    spec = importlib.util.spec_from_file_location(CONFIG_KERNEL, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[CONFIG_KERNEL] = module
    spec.loader.exec_module(module)
    return module


def _kernel_module():
    """The kernel module of this process: the file named by ``FEATLEARN_ACTIVATION_KERNEL`` (set by
    ``featlearn.io.job.use_activation_kernel`` for a job of a config activation), else the built-in
    one."""
    path = os.environ.get(ACTIVATION_KERNEL_ENV)
    if path:
        return _load_kernel(path)
    from featlearn.model import _activation_kernel

    return _activation_kernel


_KERNEL = _kernel_module()
ACTIVATIONS, activation = _KERNEL.ACTIVATIONS, _KERNEL.activation


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
