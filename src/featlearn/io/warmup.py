"""Fill the numba cache before the jobs that need it run, so that parallel jobs do not race to
compile the same kernels.

Every module that defines numba kernels also defines ``warm()``, which calls each of its kernels
once on tiny inputs (for every dtype a job uses).  A ``numba_cache`` job warms exactly the
modules its consumer rule's script imports (the same derived closure that makes them inputs), so
editing a kernel re-warms and reruns only the rules that use it.  ``tests/test_warmup.py`` checks
that the ``warm()`` functions together compile every kernel of the package.

A warm-up compiles into an empty folder (:func:`reset_kernel_cache`): numba checks a cached kernel
against its own source file only, so a kernel whose callee in another file changed would otherwise be
loaded with the old callee inside it.
"""

import importlib
import os
import shutil


def reset_kernel_cache(cache_dir):
    """Empty the numba cache folder ``cache_dir`` (created if missing): a cached kernel carries the
    code of the kernels it calls, and numba invalidates it only when its own file changes."""
    shutil.rmtree(cache_dir, ignore_errors=True)
    os.makedirs(cache_dir)


def warm_modules(names, log=print):
    """Import each module in ``names`` (dotted) and call its ``warm()`` if it has one."""
    for name in names:
        module = importlib.import_module(name)
        if hasattr(module, "warm"):
            module.warm()
            log(f"compiled the kernels of {name}")
