"""Which featlearn modules a workflow script runs: derived from the code, never kept by hand.

A rule depends on every package module its script imports, transitively, together with the
``__init__.py`` of every package on the way (Python executes those on import).  The closure is
computed from the source with :mod:`ast` (nothing is imported), so editing any module reruns
exactly the rules whose scripts reach it.  Each file is parsed once per process (a Snakemake run
asks for the closure of every script, and the scripts share most of their modules).
"""

import ast
import functools
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


def module_closure(script, package_root):
    """Sorted files of every featlearn module that running ``script`` imports (with the
    ``__init__.py`` of each enclosing package)."""
    return list(_closure(Path(script).resolve(), Path(package_root).resolve()))


@functools.cache
def _closure(script, package_root):
    seen, todo = set(), [script]
    while todo:
        path = todo.pop()
        for dotted in _imported_modules(path, package_root):
            parts = dotted.split(".")
            for i in range(1, len(parts) + 1):
                file = _module_file(package_root, ".".join(parts[:i]))
                if file is not None and file not in seen:
                    seen.add(file)
                    todo.append(file)
    return tuple(sorted(seen))


def module_names(script, package_root):
    """Dotted names of :func:`module_closure` (``featlearn.gd.kernel``, ...)."""
    package_root = Path(package_root).resolve()
    return [_dotted_name(package_root, f) for f in module_closure(script, package_root)]
