"""Fill the numba cache before the jobs that need it run, so that parallel jobs do not race to
compile the same kernels.

Every module that defines numba kernels also defines ``warm()``, which calls each of its kernels
once on tiny inputs (for every dtype a job uses).  A ``numba_cache`` job warms exactly the kernel
modules its consumer rule's script imports, and its code input is the stamp of those modules and
what they import, so editing a kernel re-warms and reruns only the rules that use it.
``tests/test_warmup.py`` checks that the ``warm()`` functions together compile every kernel of the
package.

A warm-up compiles into an empty folder (:func:`reset_kernel_cache`): numba checks a cached kernel
against its own source file only, so a kernel whose callee in another file changed would otherwise be
loaded with the old callee inside it.
"""

import importlib
import importlib.util
import os
import shutil
from pathlib import Path


def reset_kernel_cache(cache_dir):
    """Empty the numba cache folder ``cache_dir`` (created if missing): a cached kernel carries the
    code of the kernels it calls, and numba invalidates it only when its own file changes."""
    if os.path.islink(cache_dir):  # a follower's link, left from a build where it followed a leader
        os.unlink(cache_dir)
    shutil.rmtree(cache_dir, ignore_errors=True)
    os.makedirs(cache_dir)


def warm_modules(names, log=print):
    """Import each module in ``names`` (dotted) and call its ``warm()`` if it has one."""
    for name in names:
        module = importlib.import_module(name)
        if hasattr(module, "warm"):
            module.warm()
            log(f"compiled the kernels of {name}")


def seed_kernel_cache(bases, cache_dir, log=print):
    """Copy into the numba cache ``cache_dir`` the compiled kernels of each module of ``bases``
    ({dotted name: the cache folder of a warm-up that compiled it}): every file numba keeps for a
    kernel of that module (its index ``<stem>.<kernel>-<line>.py<version>.nbi`` and the ``.nbc``
    files it names, in the folder numba derives from the module's directory), so each kernel's
    index and code come from one folder.  Run after numba's cache is set
    (``featlearn.io.job.use_kernel_cache``): it imports numba."""
    from numba.core.caching import _CacheLocator

    copied = {}
    for name, base in bases.items():
        source = Path(importlib.util.find_spec(name).origin)
        folder = _CacheLocator.get_suitable_cache_subpath(str(source))
        for file in sorted((Path(base) / folder).glob(f"{source.stem}.*")):
            (Path(cache_dir) / folder).mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, Path(cache_dir) / folder / file.name)
            copied.setdefault(base, set()).add(name)
    for base, names in copied.items():
        log(f"copied the compiled kernels of {', '.join(sorted(names))} from {base}")
