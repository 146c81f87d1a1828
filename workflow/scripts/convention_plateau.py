from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.analysis.conventions import REPORTS, aligned_risk, reported  # noqa: E402
from featlearn.gd.conventions import plateau_run  # noqa: E402
from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import SweepSettings  # noqa: E402

settings = SweepSettings.from_dict(sm.params.settings)
keys, plateau = sm.params.convention, sm.params.plateau
scale, risk = aligned_risk(settings.activation, settings.link, settings.a, settings.b, settings.noise)
log(f"aligned neuron: c* = {scale:.4f}, R* = {risk:.5f}")
run = plateau_run(settings, plateau["d"], plateau["delta"])
where = f"d={plateau['d']}, delta={plateau['delta']}"
log(f"GD at {where}: R = {run['population_risk']:.5f}, rho = {run['final_rho']:.4f}")
out = {
    "report": keys["report"],
    "aligned_scale": scale,
    "quadrature": reported(risk, keys["report"], settings.link, settings.noise),
    "measured": reported(run["population_risk"], keys["report"], settings.link, settings.noise),
    "rho": run["final_rho"],
    "final_train_loss": run["final_train_loss"],
    **{f"quadrature_{r}": reported(risk, r, settings.link, settings.noise) for r in REPORTS},
}
where = {"plateau_d": plateau["d"], "plateau_delta": plateau["delta"]}
save_npz(sm.output[0], out, provenance(convention=sm.wildcards.convention, **where, **settings.asdict()))
