"""Provenance written into every result file: versions, git state, and the parameters used."""

import json
import platform
import subprocess
from pathlib import Path

import numba
import numpy as np
import scipy

from featlearn import __version__


def git_describe():
    """``git describe --always --dirty`` of the package checkout, or "unknown" outside a repo."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def provenance(**params):
    """A JSON-serialisable record of versions and the given parameters."""
    return {
        "featlearn": __version__,
        "git": git_describe(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "numba": numba.__version__,
        "params": params,
    }


def dumps(record):
    return json.dumps(record, sort_keys=True, default=float)
