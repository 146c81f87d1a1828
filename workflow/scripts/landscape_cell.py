from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.hessian.landscape import landscape_cell  # noqa: E402
from featlearn.io.cells import run_delta_cell  # noqa: E402
from featlearn.pipeline.settings import PlateauSettings  # noqa: E402

run_delta_cell(sm, PlateauSettings, landscape_cell, log)
