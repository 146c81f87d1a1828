from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings
    from featlearn.theory.design import design_theory

    settings, p = JobSettings.from_dict(sm.params.settings), sm.params
    log(
        f"design {sm.wildcards.design}: {settings}; bracket={p.bracket} points={p.points} factors={p.factors}"
    )
    out = design_theory(
        settings, p.level, p.bracket, p.points, p.factors, p.n_paths, p.horizon, p.replicas, log
    )
    record = provenance(
        level=p.level, n_paths=p.n_paths, horizon=p.horizon, replicas=p.replicas, **settings.asdict()
    )
    save_npz(sm.output[0], out, record)


main(snakemake)  # noqa: F821
