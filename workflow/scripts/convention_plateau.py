from featlearn.io.job import start_job


def main(sm):
    log = start_job(sm)  # first: the featlearn modules below use numba, whose cache it sets
    from featlearn.analysis.conventions import REPORTS, aligned_risk, reported
    from featlearn.cells.conventions import plateau_run
    from featlearn.io.provenance import provenance
    from featlearn.io.results import save_npz
    from featlearn.io.settings import JobSettings

    settings = JobSettings.from_dict(sm.params.settings)
    report, d, delta = sm.params.report, sm.params.plateau_d, sm.params.plateau_delta
    scale, risk = aligned_risk(settings.activation, settings.link, settings.a, settings.b, settings.noise)
    log(f"aligned neuron: c* = {scale:.4f}, R* = {risk:.5f}")
    run = plateau_run(settings, d, delta)
    log(f"GD at d={d}, delta={delta}: R = {run['population_risk']:.5f}, rho = {run['final_rho']:.4f}")
    out = {
        "report": report,
        "aligned_scale": scale,
        "quadrature": reported(risk, report, settings.link, settings.noise),
        "measured": reported(run["population_risk"], report, settings.link, settings.noise),
        "rho": run["final_rho"],
        "final_train_loss": run["final_train_loss"],
        **{f"quadrature_{r}": reported(risk, r, settings.link, settings.noise) for r in REPORTS},
    }
    where = {"plateau_d": d, "plateau_delta": delta}
    save_npz(sm.output[0], out, provenance(convention=sm.wildcards.convention, **where, **settings.asdict()))


main(snakemake)  # noqa: F821
