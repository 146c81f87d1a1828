from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import RefereeSettings  # noqa: E402
from featlearn.theory.referee import trajectory_cell  # noqa: E402

settings = RefereeSettings.from_dict(sm.params.settings)
delta = float(sm.wildcards.delta)
log(f"restricted GD {sm.wildcards.model} delta={delta}: {settings}")
cell = trajectory_cell(settings, delta, log)
save_npz(sm.output[0], cell, provenance(delta=delta, **settings.asdict()))
