"""The model kernel this process runs: the numba functions ``activation(code, z)`` → (σ, σ′, σ″) and
``rho(code, e, kappa)`` → (ρ, ψ, ρ″) with their name → code maps ``ACTIVATIONS`` and ``LOSSES``
(docs/model.md, eqs. (M2), (M3a)).

They are generated code (``featlearn.model.catalogue``): the built-in module ``_model_kernel.py``,
or, for a job whose activation or loss is given in the config, the module named by
``FEATLEARN_MODEL_KERNEL`` (set by ``featlearn.model.kernel_choice.use_model_kernel``; the built-ins and the
job's config entries, ``catalogue.config_kernel_source``), loaded when this module is imported.
"""

import importlib.util
import os
import sys

from featlearn.model.kernel_choice import MODEL_KERNEL_ENV

CONFIG_KERNEL = "featlearn_config_model_kernel"
"""The module name a config kernel module is imported under (it lies outside the package)."""


def _load_kernel(path):
    """Import the kernel module at ``path`` (registered in ``sys.modules`` as ``CONFIG_KERNEL``)."""
    spec = importlib.util.spec_from_file_location(CONFIG_KERNEL, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[CONFIG_KERNEL] = module
    spec.loader.exec_module(module)
    return module


def _kernel_module():
    """The file named by ``FEATLEARN_MODEL_KERNEL``, else the built-in module."""
    path = os.environ.get(MODEL_KERNEL_ENV)
    if path:
        return _load_kernel(path)
    from featlearn.model import _model_kernel

    return _model_kernel


_KERNEL = _kernel_module()
ACTIVATIONS, activation = _KERNEL.ACTIVATIONS, _KERNEL.activation
LOSSES, rho = _KERNEL.LOSSES, _KERNEL.rho
