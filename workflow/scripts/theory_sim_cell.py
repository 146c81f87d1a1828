from featlearn.jobsetup import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402
from featlearn.theory_sim import trajectory_cell  # noqa: E402

s, sim = dict(sm.params.settings), dict(sm.params.sim)
delta = float(sm.wildcards.delta)
log(f"restricted GD {sm.wildcards.model} d={sim['d']} delta={delta} T={sm.params.horizon}: {s} {sim}")
cell = trajectory_cell(
    s, sim["d"], delta, sim["seeds"], sm.params.horizon, sim["spectrum_steps"], sim["k"], log
)
save_npz(sm.output[0], cell, provenance(delta=delta, horizon=sm.params.horizon, **sim, **s))
