from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.gd.trials import run_cell  # noqa: E402
from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import SweepSettings  # noqa: E402

d, delta = int(sm.wildcards.d), float(sm.wildcards.delta)
settings = SweepSettings.from_dict(sm.params.settings)
log(f"cell d={d} delta={delta}: {settings}")
cell = run_cell(settings, d, delta, log=log)
save_npz(sm.output[0], cell, provenance(d=d, delta=delta, **settings.asdict()))
log(f"successes {int(cell['success'].sum())}/{settings.trials}")
