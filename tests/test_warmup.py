"""The ``warm()`` functions of the package's modules together compile every numba kernel that Python
calls (no job compiles one itself); helper kernels called only from other kernels are compiled
into those.

Run in a fresh interpreter: other tests in this process compile kernels too.
"""

import subprocess
import sys

CHECK = """
import importlib, pkgutil
from numba.core.registry import CPUDispatcher
import featlearn
from featlearn.io.warmup import warm_modules

kernels, names = {}, []
for info in pkgutil.walk_packages(featlearn.__path__, "featlearn."):
    names.append(info.name)
    module = importlib.import_module(info.name)
    for name, obj in vars(module).items():
        if isinstance(obj, CPUDispatcher) and obj.__module__ == info.name:
            kernels[f"{info.name}.{name}"] = obj
assert len(kernels) >= 8, sorted(kernels)
if SKIP:
    names.remove("featlearn.theory.dmft")
warm_modules(names, log=lambda _: None)
compiled = [k for k in kernels.values() if k.signatures]
callees = {name for k in compiled for name in k.py_func.__code__.co_names}
missing = [n for n, k in kernels.items() if not k.signatures and n.rsplit(".", 1)[1] not in callees]
print("MISSING", missing)
"""


def run_check(skip_dmft):
    proc = subprocess.run(
        [sys.executable, "-c", f"SKIP = {skip_dmft}\n" + CHECK], capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_numba_kernel_is_compiled_by_the_warm_up():
    assert "MISSING []" in run_check(False)


def test_the_check_sees_a_kernel_the_warm_up_leaves_out():
    assert "featlearn.theory.dmft.response_step" in run_check(True)
