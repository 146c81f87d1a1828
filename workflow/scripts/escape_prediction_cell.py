from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.io.cells import run_cell_job
    from featlearn.theory.prediction import prediction_cell

    run_cell_job(sm, prediction_cell, log)


main(snakemake)  # noqa: F821
