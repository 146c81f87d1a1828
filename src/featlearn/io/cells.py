"""A cell job (a GD cell, a plateau, a referee): settings in, arrays with provenance out."""

import importlib

from featlearn.io.provenance import provenance
from featlearn.io.results import save_npz
from featlearn.io.settings import JobSettings

COORDINATES = {"d": int, "delta": float, "block": int, "n_paths": int}
"""The numeric wildcards that place a cell, with their types."""


JOB_PARAMS = ("settings", "compute", "cache_dir")
"""The params of every compute job (its settings, its function, its numba cache); any other param of
its kind (``jobs.Kind.param_names``) is a keyword argument of its function."""


def run_cell_job(smk, compute, log):
    """Settings from the rule's params (``JobSettings.from_dict``), the cell from the job's
    numeric wildcards that are not settings fields (``COORDINATES``: δ, and d where the settings have
    none), ``compute(settings, **cell, **extra, log=log)`` → arrays (``extra``: the kind's params
    besides ``JOB_PARAMS``), saved with their provenance (the cell, then the settings) to the job's
    output."""
    settings = JobSettings.from_dict(smk.params.settings)
    fields = set(settings.field_names())
    cell = {k: COORDINATES[k](v) for k, v in smk.wildcards.items() if k in COORDINATES and k not in fields}
    extra = {k: v for k, v in smk.params.items() if k not in JOB_PARAMS}
    log(f"{smk.rule} {' '.join(f'{k}={v}' for k, v in cell.items())}: {settings}")
    arrays = compute(settings, **cell, **extra, log=log)
    save_npz(smk.output[0], arrays, provenance(**cell, **settings.asdict()))


def named_function(dotted):
    """The function ``package.module.name`` (a kind's ``compute``), its module imported."""
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)
