"""Fill the numba cache before the jobs that need it run, so that parallel jobs do not race to
compile the same kernels.

Every module that defines numba kernels also defines ``warm()``, which calls each of its kernels
once on tiny inputs (for every dtype a job uses).  A ``numba_cache`` job warms exactly the
modules its consumer rule's script imports (the same derived closure that makes them inputs), so
editing a kernel re-warms and reruns only the rules that use it.  ``tests/test_warmup.py`` checks
that the ``warm()`` functions together compile every kernel of the package.
"""

import importlib


def warm_modules(names, log=print):
    """Import each module in ``names`` (dotted) and call its ``warm()`` if it has one."""
    for name in names:
        module = importlib.import_module(name)
        if hasattr(module, "warm"):
            module.warm()
            log(f"compiled the kernels of {name}")
