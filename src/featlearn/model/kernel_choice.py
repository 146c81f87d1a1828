"""Which generated model kernel a process runs (``featlearn.model.compiled``): the built-in module,
or the module of a job whose activation or loss is a config entry, named by an environment variable
that ``compiled`` reads when it is imported.  Plain Python: set before any numba kernel is loaded."""

import os
import sys

MODEL_KERNEL_ENV = "FEATLEARN_MODEL_KERNEL"
"""The generated model kernel module (activations and losses) a process runs (read by
``featlearn.model.compiled`` when it is imported); unset: the built-in kernel."""


def use_model_kernel(path):
    """Make ``featlearn.model.compiled`` load the generated kernel module at ``path`` (that of a job
    with a config activation or loss, ``FEATLEARN_MODEL_KERNEL``), or the built-in kernel for None.

    The module is chosen when ``compiled`` is imported, so this must run before; it raises
    otherwise, since the job would silently run the kernel already loaded."""
    if "featlearn.model.compiled" in sys.modules:
        raise RuntimeError(f"featlearn.model.compiled was imported before its kernel was set to {path}")
    if path is None:
        os.environ.pop(MODEL_KERNEL_ENV, None)
    else:
        os.environ[MODEL_KERNEL_ENV] = path
