from featlearn.jobsetup import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402
from featlearn.theory import fixed_point_model  # noqa: E402

s = dict(sm.params.settings)
log(f"fixed point {sm.wildcards.model}: deltas={list(sm.params.deltas)} nodes={sm.params.nodes} settings={s}")
out = fixed_point_model(s, list(sm.params.deltas), sm.params.nodes, log)
save_npz(sm.output[0], out, provenance(nodes=sm.params.nodes, **s))
