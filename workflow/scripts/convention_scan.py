from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.cells.conventions import scan
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings

    settings = JobSettings.from_dict(sm.params.settings)
    d = int(sm.wildcards.d)
    log(f"convention {sm.wildcards.convention}, d={d}: {settings}")
    out = scan(settings, d, sm.params.coarse, sm.params.refine, sm.params.rule, log)
    record = provenance(convention=sm.wildcards.convention, d=d, rule=sm.params.rule, **settings.asdict())
    save_npz(sm.output[0], out, record)


main(snakemake)  # noqa: F821
