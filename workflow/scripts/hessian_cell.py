from featlearn.jobsetup import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.plateau import plateau_cell  # noqa: E402
from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402

s = dict(sm.params.settings)
delta = float(sm.wildcards.delta)
log(f"plateau cell {s['activation']} d={s['d']} delta={delta}: {s}")
cell = plateau_cell(s, s["d"], delta, s["seeds"], s["checkpoints"], s["grad_tol"], s["k"], log)
save_npz(sm.output[0], cell, provenance(delta=delta, **s))
