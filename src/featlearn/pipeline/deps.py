"""Which featlearn modules a workflow script runs: derived from the code, never kept by hand.

A rule depends on every package module its script imports, transitively, together with the
``__init__.py`` of every package on the way (Python executes those on import).  The closure is
computed from the source with :mod:`ast` (nothing is imported), so editing any module reruns
exactly the rules whose scripts reach it.  Each file is parsed once per process (a Snakemake run
asks for the closure of every script, and the scripts share most of their modules).

A job kind that names its compute function (``featlearn.pipeline.jobs.Kind.compute``) runs a
generic script that imports that function's module by name: its closure is the script's and that
module's, as if the script imported it (``imports``).

A rule takes that closure as one input, the script's code stamp (:func:`code_stamp`): a file
holding the SHA-256 of the modules, rewritten only when it changes.  Its modification time moves
exactly when the code the script runs does, as the newest module's would, but the Snakemake master
checks one file per job instead of every module of its chain at every scheduling round.
"""

import ast
import functools
import hashlib
import os
import tempfile
from pathlib import Path

PACKAGE = "featlearn"


@functools.cache
def _module_file(package_root, dotted):
    """The file of module ``dotted`` (``featlearn.gd.engine``) under ``package_root``, or None."""
    parts = dotted.split(".")
    if parts[0] != PACKAGE:
        return None
    base = package_root.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _dotted_name(package_root, path):
    rel = path.relative_to(package_root).with_suffix("")
    parts = [PACKAGE, *rel.parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def _imported_modules(path, package_root):
    """Dotted names of the featlearn modules ``path`` imports (each ``from a import b`` also
    names ``a.b``, which is a module when b is a submodule)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    inside = path.is_relative_to(package_root)
    here = _dotted_name(package_root, path) if inside else None
    is_package = path.name == "__init__.py"
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                if here is None:
                    continue
                anchor = here.split(".")
                anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                module = ".".join(anchor + ([module] if module else []))
            names.append(module)
            names += [f"{module}.{alias.name}" for alias in node.names]
    return tuple(n for n in names if n == PACKAGE or n.startswith(PACKAGE + "."))


def module_closure(script, package_root, imports=()):
    """Sorted files of every featlearn module that running ``script`` imports (with the
    ``__init__.py`` of each enclosing package), ``imports`` (dotted names) counted as its imports."""
    return list(_closure(Path(script).resolve(), Path(package_root).resolve(), tuple(imports)))


@functools.cache
def _closure(script, package_root, imports=()):
    seen, todo = set(), []

    def add(dotted):
        parts = dotted.split(".")
        for i in range(1, len(parts) + 1):
            file = _module_file(package_root, ".".join(parts[:i]))
            if file is not None and file not in seen:
                seen.add(file)
                todo.append(file)

    for dotted in (*_imported_modules(script, package_root), *imports):
        add(dotted)
    while todo:
        for dotted in _imported_modules(todo.pop(), package_root):
            add(dotted)
    return tuple(sorted(seen))


def module_names(script, package_root, imports=()):
    """Dotted names of :func:`module_closure` (``featlearn.gd.kernel``, ...)."""
    package_root = Path(package_root).resolve()
    return [_dotted_name(package_root, f) for f in module_closure(script, package_root, imports)]


def kernel_modules(script, package_root, imports=()):
    """The modules of :func:`module_names` that define numba kernels: those with a top-level
    ``warm()`` (``featlearn.io.warmup``; read from the source, without importing numba)."""
    package_root = Path(package_root).resolve()
    return tuple(
        _dotted_name(package_root, f)
        for f in module_closure(script, package_root, imports)
        if _defines_warm(f)
    )


@functools.cache
def _defines_warm(path):
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return any(isinstance(node, ast.FunctionDef) and node.name == "warm" for node in tree.body)


def kernel_closure(script, package_root, imports=()):
    """Sorted files of the kernel modules of ``script`` (:func:`kernel_modules`) and of every module
    they import: what a numba warm-up of its kernels compiles."""
    package_root = Path(package_root).resolve()
    kernels = [f for f in module_closure(script, package_root, imports) if _defines_warm(f)]
    packages = {  # the __init__.py of each package enclosing a kernel module, run when it is imported
        _module_file(package_root, ".".join(parts[:i]))
        for parts in (_dotted_name(package_root, k).split(".") for k in kernels)
        for i in range(1, len(parts))
    }
    return sorted({*kernels, *(packages - {None}), *(f for k in kernels for f in _closure(k, package_root))})


def kernel_closure_names(script, package_root, imports=()):
    """Dotted names of :func:`kernel_closure` (every module whose kernels a warm-up may compile)."""
    package_root = Path(package_root).resolve()
    return [_dotted_name(package_root, f) for f in kernel_closure(script, package_root, imports)]


def closure_digest(script, package_root, kernels_only=False, imports=()):
    """SHA-256 (hex) of the modules :func:`module_closure` (or, ``kernels_only``,
    :func:`kernel_closure`) lists: each one's path under ``package_root`` and its bytes, so it
    changes exactly when one of them, or the set, does."""
    package_root = Path(package_root).resolve()
    digest = hashlib.sha256()
    for file in (kernel_closure if kernels_only else module_closure)(script, package_root, imports):
        digest.update(str(file.relative_to(package_root)).encode() + b"\0" + file.read_bytes() + b"\0")
    return digest.hexdigest()


def write_if_changed(path, text):
    """Write ``text`` to ``path`` unless it holds it already (its modification time then stays);
    through a temporary file renamed into place, since several processes may write it at once."""
    path = Path(path)
    if path.is_file() and path.read_text() == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(partial, path)


def code_stamp(script, package_root, folder, kernels_only=False, imports=(), name=None):
    """The code stamp of ``script`` with ``imports``, ``<folder>/<name>.sha256`` (by default the
    script's stem): written with :func:`closure_digest` when it holds another digest or is missing;
    returns its path."""
    stamp = Path(folder) / f"{name or Path(script).stem}.sha256"
    write_if_changed(stamp, closure_digest(script, package_root, kernels_only, imports) + "\n")
    return stamp


def foreign_package(root):
    """None when the imported featlearn package is the checkout ``root``'s own (its
    ``src/featlearn``, or a package with the same ``.py`` files byte for byte), else one line naming
    both: the rules are declared from the imported package's registries and the jobs run its code,
    so a checkout must not be driven by another checkout's package."""
    import featlearn

    imported = Path(featlearn.__file__).resolve().parent
    own = (Path(root) / "src" / PACKAGE).resolve()
    if imported == own:
        return None

    def files(folder):
        return {p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*.py")}

    if own.is_dir() and files(imported) == files(own):
        return None
    return (
        f"this checkout's package is {own}, but Python imports featlearn from {imported} (another "
        f"checkout's, with other code): run `pip install -e .` here or set PYTHONPATH={own.parent}"
    )
