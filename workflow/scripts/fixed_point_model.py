from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings
    from featlearn.theory.delta_nn import fixed_point_model

    settings, deltas = JobSettings.from_dict(sm.params.settings), list(sm.params.deltas)
    log(f"fixed point {sm.wildcards.model}: deltas={deltas} level={sm.params.level} {settings}")
    out = fixed_point_model(settings, deltas, sm.params.level, log)
    save_npz(sm.output[0], out, provenance(level=sm.params.level, **settings.asdict()))


main(snakemake)  # noqa: F821
