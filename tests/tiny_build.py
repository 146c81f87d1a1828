"""The tiny build the end-to-end tests read: one per pytest session (``conftest.tiny_run``) and, where
``$FEATLEARN_TINY_STORE`` names a folder, one per set of sources across processes.

``.ci/run`` sets the store: its first ``python -m pytest`` builds the tiny config and keeps the built
tree there under the hash of everything the build is made from (the Snakefile, workflow/, src/,
envs/, paper/, this file, and the versions of Python and of the libraries); the opt-in markers'
sessions and the SLURM test's local reference then copy that tree instead of building it again.  A
copy keeps the files' modification times, so Snakemake finds it up to date
(``test_a_copied_checkout_reruns_nothing``); a source edited in between gives another hash, hence a
new build.  Without the store every session builds its own.

    python tests/tiny_build.py DEST      # the tiny build in DEST (copied from the store if it has it)
"""

import hashlib
import os
import shutil
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

from featlearn.io.settings import READS_ENV

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "workflow" / "configs" / "tiny.yaml"
SOURCES = ("Snakefile", "workflow", "src", "envs", "paper")
"""What a build is made from: copied into each test tree, and hashed for the store."""
SKIPPED = ("__pycache__", "*.egg-info")
TOOLS = ("snakemake", "numpy", "scipy", "numba", "llvmlite", "sympy", "matplotlib", "typst")
"""The libraries whose versions key a stored build too (with Python's)."""
STORE_ENV = "FEATLEARN_TINY_STORE"
READS = "settings_reads.jsonl"
"""The record, in a tracked build's directory, of the settings fields its jobs read (``READS_ENV``)."""


def copy_workflow(dest, config=ROOT / "config.yaml"):
    """A copy of the workflow in ``dest`` with ``config`` as its config.yaml."""
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    shutil.copy(config, dest / "config.yaml")
    for name in SOURCES[1:]:
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns(*SKIPPED))
    (dest / "profiles").symlink_to("workflow/profiles")  # the default profile, found next to the Snakefile
    return dest


def sources_hash():
    """SHA-256 (16 hex digits) of what a tiny build is made with: the Python and library versions, this
    file, the tiny config and every file of ``SOURCES`` (path and content)."""
    versions = [sys.version, *(version(name) for name in TOOLS)]
    files = [Path(__file__).resolve(), TINY]
    for name in SOURCES:
        path = ROOT / name
        files += [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
    digest = hashlib.sha256("\0".join(versions).encode())
    for path in files:
        parts = path.relative_to(ROOT).parts
        if any(Path(part).match(pattern) for part in parts for pattern in SKIPPED):
            continue
        digest.update("/".join(parts).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def tiny_build(dest):
    """The tiny build in the empty folder ``dest``, every job recording which settings fields its code
    read (``READS``): copied from the store when it holds one of these sources, else built (and put
    in the store, if there is one)."""
    store = os.environ.get(STORE_ENV)
    stored = Path(store) / sources_hash() if store else None
    if stored is not None and stored.is_dir():
        shutil.copytree(stored, dest, symlinks=True, dirs_exist_ok=True)
        return dest
    copy_workflow(dest, TINY)
    command = ["snakemake", "--cores", "2"]
    env = {**os.environ, READS_ENV: str(dest / READS)}  # the same code as the installed package
    proc = subprocess.run(command, cwd=dest, capture_output=True, text=True, timeout=1200, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"the tiny build failed in {dest}:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}")
    if stored is not None:  # complete or absent: copied under a temporary name, then renamed
        partial = stored.with_name(f"{stored.name}.{os.getpid()}.partial")
        shutil.copytree(dest, partial, symlinks=True)
        try:
            partial.rename(stored)
        except OSError:  # another process stored the same build first
            shutil.rmtree(partial)
    return dest


if __name__ == "__main__":
    store = os.environ.get(STORE_ENV)
    copied = bool(store) and (Path(store) / sources_hash()).is_dir()
    print(f"{tiny_build(Path(sys.argv[1]))}: {'copied from the store' if copied else 'built'}")
