"""Compile every numba kernel once (for float32 and float64 X) so that jobs load it from the cache."""

import numpy as np

from . import gd_kernel, network
from .activations import ACTIVATIONS


def compile_kernels():
    """Call each kernel on tiny inputs; with ``NUMBA_CACHE_DIR`` set this fills the on-disk cache."""
    rng = np.random.default_rng(0)
    for dtype in (np.float32, np.float64):
        x = rng.standard_normal((9, 5)).astype(dtype)
        y = rng.standard_normal(9)
        theta = rng.standard_normal((2, 5))
        grad, partial = gd_kernel.scratch(2, 5, dtype)
        gd_kernel.risk_and_gradient(x, y, theta, np.ones(2), np.zeros(2), 0, grad, partial)
    for name in ACTIVATIONS:
        network.risk(x, y, theta, np.ones(2), np.zeros(2), name)
