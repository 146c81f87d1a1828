from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.hessian.plateau import threshold_scan_cell
    from featlearn.io.cells import run_cell_job

    run_cell_job(sm, threshold_scan_cell, log)


main(snakemake)  # noqa: F821
