"""The ``warm()`` functions of the package's modules together compile every numba kernel that Python
calls (no job compiles one itself); helper kernels called only from other kernels (directly or
through other helpers) are compiled into those.  The kernels are cached where the job says
(``io.job.use_kernel_cache``), which works only before numba is imported: no script imports it
earlier.

Run in a fresh interpreter: other tests in this process compile kernels too.
"""

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

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
by_short = {}
for n, k in kernels.items():
    by_short.setdefault(n.rsplit(".", 1)[1], []).append(k)
reached = [k for k in kernels.values() if k.signatures]
callees = set()
while reached:  # helpers of helpers: the callees' callees, transitively
    names_called = {name for k in reached for name in k.py_func.__code__.co_names} - callees
    callees |= names_called
    reached = [k for name in names_called for k in by_short.get(name, ())]
missing = [n for n, k in kernels.items() if not k.signatures and n.rsplit(".", 1)[1] not in callees]
print("MISSING", missing)
"""


def run_python(code, *args):
    """Run ``code`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)], capture_output=True, text=True, timeout=600
    )


def run_check(skip_dmft):
    proc = run_python(f"SKIP = {skip_dmft}\n" + CHECK)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_numba_kernel_is_compiled_by_the_warm_up():
    assert "MISSING []" in run_check(False)


def test_the_check_sees_a_kernel_the_warm_up_leaves_out():
    assert "featlearn.theory.dmft.response_step" in run_check(True)


def test_kernels_are_cached_in_the_directory_the_job_sets(tmp_path):
    proc = run_python(
        "import sys\n"
        "from featlearn.io.job import use_kernel_cache\n"
        "use_kernel_cache(sys.argv[1])\n"
        "from featlearn.model import activations\n"
        "activations.warm()\n",
        tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    assert any(tmp_path.rglob("activations.*.nbi")), sorted(tmp_path.rglob("*"))


def test_setting_the_kernel_cache_after_numba_is_imported_fails():
    proc = run_python("import numba\nfrom featlearn.io.job import use_kernel_cache\nuse_kernel_cache('x')")
    assert proc.returncode != 0 and "numba was imported before its kernel cache" in proc.stderr


def test_no_script_imports_numba_before_it_sets_the_kernel_cache():
    """The module-level imports of every script that sets the kernel cache (``start_job``,
    ``use_job_kernels``, ``use_kernel_cache``) leave numba and the activation kernel unimported: the
    featlearn modules it runs are imported after."""
    scripts = [
        p
        for p in (ROOT / "workflow" / "scripts").glob("*.py")
        if re.search(r"start_job|use_job_kernels|use_kernel_cache", p.read_text())
    ]
    assert len(scripts) >= 10
    imports = [
        ast.unparse(node)
        for p in scripts
        for node in ast.parse(p.read_text()).body
        if isinstance(node, ast.Import | ast.ImportFrom)
    ]
    loaded = "print('numba' in sys.modules, 'featlearn.model.activations' in sys.modules)"
    proc = run_python("\n".join([*imports, "import sys", loaded]))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "False"]


def test_the_kernel_modules_read_from_the_source_are_those_that_warm_and_a_leader_shares_them():
    """``deps.kernel_modules`` (read without importing numba) names exactly the modules of a script's
    closure that have ``warm()``; every warmed script's leader (``kernels.kernel_leader``) holds the
    same kernel modules and comes first among them in the job registry."""
    import importlib

    from featlearn.pipeline import jobs, kernels
    from featlearn.pipeline.deps import kernel_modules, module_names

    package, scripts = ROOT / "src" / "featlearn", ROOT / "workflow" / "scripts"
    warmed = list(dict.fromkeys(kind.script for kind in jobs.KINDS if kind.warm))
    for script in warmed:
        names = module_names(scripts / f"{script}.py", package)
        imported = tuple(n for n in names if hasattr(importlib.import_module(n), "warm"))
        assert kernel_modules(scripts / f"{script}.py", package) == imported
        leader = kernels.kernel_leader(script, ROOT)
        assert kernel_modules(scripts / f"{leader}.py", package) == imported
        assert warmed.index(leader) <= warmed.index(script)
        assert kernels.kernel_leader(leader, ROOT) == leader
    followers = {s for s in warmed if kernels.kernel_leader(s, ROOT) != s}
    assert {"run_grokking", "fixed_point_model", "theory_sim_cell"} <= followers  # what sharing saves
