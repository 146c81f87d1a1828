from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.io.cells import run_cell_job
    from featlearn.theory.two_stage import two_stage_cell

    run_cell_job(sm, two_stage_cell, log)


main(snakemake)  # noqa: F821
