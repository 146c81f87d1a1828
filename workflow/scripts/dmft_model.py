from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings
    from featlearn.theory.delta_nn import dmft_model

    settings = JobSettings.from_dict(sm.params.settings)
    n_paths, horizon, deltas = int(sm.wildcards.n_paths), sm.params.horizon, list(sm.params.deltas)
    log(f"DMFT {sm.wildcards.model}: N={n_paths} T={horizon} deltas={deltas} settings={settings}")
    out = dmft_model(settings, deltas, n_paths, horizon, sm.params.replicas, log)
    save_npz(sm.output[0], out, provenance(n_paths=n_paths, horizon=horizon, **settings.asdict()))


main(snakemake)  # noqa: F821
