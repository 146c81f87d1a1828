from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.io.cells import run_delta_cell  # noqa: E402
from featlearn.pipeline.settings import TwoStageSettings  # noqa: E402
from featlearn.theory.two_stage import two_stage_cell  # noqa: E402

run_delta_cell(sm, TwoStageSettings, two_stage_cell, log)
