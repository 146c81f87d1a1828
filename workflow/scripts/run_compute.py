from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the kind's function may use numba, whose cache it sets
    from featlearn.io.cells import named_function, run_cell_job

    run_cell_job(sm, named_function(sm.params.compute), log)


main(snakemake)  # noqa: F821
