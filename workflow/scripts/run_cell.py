from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.gd.trials import run_cell
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings

    d, delta = int(sm.wildcards.d), float(sm.wildcards.delta)
    settings = JobSettings.from_dict(sm.params.settings)
    log(f"cell d={d} delta={delta}: {settings}")
    cell = run_cell(settings, d, delta, log=log)
    save_npz(sm.output[0], cell, provenance(d=d, delta=delta, **settings.asdict()))
    log(f"successes {int(cell['success'].sum())}/{settings.trials}")


main(snakemake)  # noqa: F821
