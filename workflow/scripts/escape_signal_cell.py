from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.cells.escape import signal_cell
    from featlearn.io.cells import run_cell_job

    m0s = sm.params.m0
    run_cell_job(sm, lambda s, delta, log: signal_cell(s, delta, m0s, log), log)


main(snakemake)  # noqa: F821
