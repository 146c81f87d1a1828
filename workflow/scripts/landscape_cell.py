from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.hessian.landscape import landscape_cell
    from featlearn.io.cells import run_delta_cell

    run_delta_cell(sm, landscape_cell, log)


main(snakemake)  # noqa: F821
