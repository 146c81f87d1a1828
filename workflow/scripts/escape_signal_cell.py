from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.io.cells import run_delta_cell  # noqa: E402
from featlearn.pipeline.settings import EscapeSettings  # noqa: E402
from featlearn.theory.escape import signal_cell  # noqa: E402

run_delta_cell(sm, EscapeSettings, lambda s, delta, log: signal_cell(s, delta, sm.params.m0, log), log)
