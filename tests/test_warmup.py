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

import numpy as np

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
    assert len(scripts) >= 9  # run_compute.py among them, which runs every compute kind's function
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
    """``deps.kernel_modules`` (read without importing numba) names exactly the modules of a
    program's closure that have ``warm()``; every warmed program's leader (``kernels.kernel_leader``)
    holds the same kernel modules and comes first among them in the job registry."""
    import importlib

    from featlearn.pipeline import kernels
    from featlearn.pipeline.deps import kernel_modules, module_names

    warmed = kernels.warmed_programs()
    for program in warmed:
        files = kernels.program_files(program, ROOT)
        imported = tuple(n for n in module_names(*files) if hasattr(importlib.import_module(n), "warm"))
        assert kernel_modules(*files) == imported
        leader = kernels.kernel_leader(program, ROOT)
        assert kernels.program_kernel_modules(leader, ROOT) == imported
        assert warmed.index(leader) <= warmed.index(program)
        assert kernels.kernel_leader(leader, ROOT) == leader
    followers = {s for s in warmed if kernels.kernel_leader(s, ROOT) != s}
    assert {"run_grokking", "fixed_point_model", "theory_sim_cell"} <= followers  # what sharing saves


def test_every_kernel_declares_its_fastmath_flags():
    """numba compiles a kernel that sets no fastmath with the flags of the kernel that first calls it,
    and caches that code under its signature alone; so a kernel shared by callers with different
    flags would depend on which compiled first.  Every ``njit`` in the package (and in the generated
    model kernel's template) names ``fastmath``."""
    from featlearn.model import catalogue

    sources = {p: p.read_text() for p in (ROOT / "src" / "featlearn").rglob("*.py")}
    sources["catalogue template"] = catalogue.kernel_source({}, {})
    calls = [
        (name, node)
        for name, text in sources.items()
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "njit"
    ]
    assert len(calls) >= 40
    assert [name for name, node in calls if "fastmath" not in {k.arg for k in node.keywords}] == []


FASTMATH_CALLER_FIRST = """
import sys
from featlearn.io.job import use_kernel_cache
use_kernel_cache(sys.argv[2])
import numpy as np
from numba import njit
from featlearn.model.compiled import activation

FLAGS = {"reassoc", "contract", "arcp", "nsz"}
inheriting = njit(activation.py_func)  # the same σ, declaring no flags
for kernel in (activation, inheriting):
    fast = njit(fastmath=FLAGS)(lambda z: kernel(0, z)[0])
    fast(0.5)  # compiles the kernel's (int64, float64) inside a fastmath caller first
    print("reassoc" in kernel.inspect_llvm(kernel.signatures[0]))
z = np.linspace(-3.0, 3.0, 61)
np.save(sys.argv[1], np.array([activation(0, v) for v in z]))
"""


def test_a_fastmath_caller_compiling_first_leaves_the_model_kernel_precise(tmp_path):
    """The model kernel's σ compiled first inside a fastmath caller is the precise σ: the same bits
    as compiled alone, so a job's σ does not depend on which kernel its warm-up compiled first."""
    first = run_python(FASTMATH_CALLER_FIRST, tmp_path / "first.npy", tmp_path / "first")
    alone = run_python(
        FASTMATH_CALLER_FIRST.replace("fast(0.5)", "kernel(0, 0.5)"),
        tmp_path / "alone.npy",
        tmp_path / "alone",
    )
    assert first.returncode == 0 and alone.returncode == 0, first.stderr + alone.stderr
    assert first.stdout.split() == ["False", "True"]  # declared: precise; undeclared: inherits
    assert alone.stdout.split() == ["False", "False"]
    assert np.array_equal(np.load(tmp_path / "first.npy"), np.load(tmp_path / "alone.npy"))


CALLER = """
import sys
sys.path.insert(0, sys.argv[1])
from featlearn.io.job import use_kernel_cache
use_kernel_cache(sys.argv[2])
import caller
print(caller.outer(1.0))
"""


def test_a_warm_up_recompiles_a_kernel_whose_callee_changed(tmp_path):
    """numba checks a cached kernel against its own file only: after an edit of its callee's file the
    old callee is loaded inside it.  ``reset_kernel_cache`` (what a warm-up does first) recompiles."""
    from featlearn.io.warmup import reset_kernel_cache

    code, cache = tmp_path / "code", tmp_path / "cache"
    code.mkdir()
    (code / "callee.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef inner(x):\n    return 2.0 * x\n"
    )
    (code / "caller.py").write_text(
        "from numba import njit\nfrom callee import inner\n\n"
        "@njit(cache=True)\ndef outer(x):\n    return inner(x) + 1.0\n"
    )
    runs = [run_python(CALLER, code, cache)]
    (code / "callee.py").write_text((code / "callee.py").read_text().replace("2.0 * x", "3.0 * x"))
    runs.append(run_python(CALLER, code, cache))
    reset_kernel_cache(cache)
    runs.append(run_python(CALLER, code, cache))
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr for r in runs]
    assert [r.stdout.strip() for r in runs] == ["3.0", "3.0", "4.0"]  # stale, then recompiled


def test_a_warm_up_copies_only_kernels_a_smaller_leader_compiled():
    """``kernels.kernel_bases``: each base is a leader whose kernel modules are a strict subset of the
    script's and whose kernel closure holds the module it gives; with today's scripts, ``gd.kernel``
    and ``theory.fixed_point`` (with the ``prox_law`` kernels it calls) are compiled by one warm-up
    each and copied by the others."""
    from featlearn.pipeline import kernels
    from featlearn.pipeline.deps import kernel_closure_names

    warmed = kernels.warmed_programs()
    modules = {p: set(kernels.program_kernel_modules(p, ROOT)) for p in warmed}
    leaders = [p for p in warmed if kernels.kernel_leader(p, ROOT) == p]
    compiled = {}
    for script in leaders:
        bases = kernels.kernel_bases(script, ROOT)
        for module, base in bases.items():
            assert base in leaders and modules[base] < modules[script]
            assert module in kernel_closure_names(*kernels.program_files(base, ROOT))
        for module in modules[script] - set(bases):
            compiled.setdefault(module, []).append(script)
    assert compiled["featlearn.gd.kernel"] == ["run_cell"]
    assert compiled["featlearn.theory.fixed_point"] == ["dmft_model"]
    assert kernels.kernel_bases("escape_linear_cell", ROOT)["featlearn.theory.prox_law"] == "dmft_model"


SEEDED = """
import sys
from featlearn.io.job import use_kernel_cache
use_kernel_cache(sys.argv[1])
from featlearn.io.warmup import seed_kernel_cache
if sys.argv[2:]:
    seed_kernel_cache({"featlearn.model.loss": sys.argv[2]}, sys.argv[1], log=lambda _: None)
from featlearn.model import loss
loss.warm()
kernels = [k for k in vars(loss).values() if hasattr(k, "stats") and k.signatures]
print(*(sum(sum(getattr(k.stats, n).values()) for k in kernels) for n in ("cache_misses", "cache_hits")))
"""


def test_a_seeded_cache_loads_the_copied_kernels_without_compiling(tmp_path):
    """``io.warmup.seed_kernel_cache`` copies a module's compiled kernels: a process on the seeded
    cache finds every kernel of ``model.loss`` there (no miss); on an empty cache it compiles them."""
    base, seeded, empty = (tmp_path / name for name in ("base", "seeded", "empty"))
    runs = [run_python(SEEDED, base), run_python(SEEDED, seeded, base), run_python(SEEDED, empty)]
    assert [r.returncode for r in runs] == [0, 0, 0], [r.stderr for r in runs]
    (base_misses, _), (seeded_misses, seeded_hits), (empty_misses, _) = (
        map(int, r.stdout.split()) for r in runs
    )
    assert base_misses > 0 and empty_misses == base_misses
    assert seeded_misses == 0 and seeded_hits > 0  # the kernels warm() calls; their callees are inside


def test_resetting_a_cache_replaces_a_followers_link_and_empties_a_folder(tmp_path):
    """A script that followed a leader (its folder a link) and now leads compiles into a folder of its
    own; a leader's folder is emptied."""
    from featlearn.io.warmup import reset_kernel_cache

    leader, follower = tmp_path / "leader", tmp_path / "follower"
    leader.mkdir()
    (leader / "kept.nbi").write_text("")
    follower.symlink_to("leader")
    reset_kernel_cache(follower)
    assert follower.is_dir() and not follower.is_symlink() and not any(follower.iterdir())
    assert (leader / "kept.nbi").exists()
    reset_kernel_cache(leader)
    assert not any(leader.iterdir())


def test_the_kernel_stamp_covers_the_kernel_modules_their_packages_and_imports_only():
    from featlearn.pipeline.deps import kernel_closure, module_closure

    package, script = ROOT / "src" / "featlearn", ROOT / "workflow" / "scripts" / "run_cell.py"
    files = {p.relative_to(package).as_posix() for p in kernel_closure(script, package)}
    assert {
        "__init__.py",
        "gd/__init__.py",
        "gd/kernel.py",
        "model/_model_kernel.py",
        "model/loss.py",
    } <= files
    assert "gd/trials.py" not in files and files < {
        p.relative_to(package).as_posix() for p in module_closure(script, package)
    }
