from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import TheoryModelSettings  # noqa: E402
from featlearn.theory.delta_nn import fixed_point_model  # noqa: E402

settings = TheoryModelSettings.from_dict(sm.params.settings)
log(f"fixed point {sm.wildcards.model}: deltas={list(sm.params.deltas)} nodes={sm.params.nodes} {settings}")
out = fixed_point_model(settings, list(sm.params.deltas), sm.params.nodes, log)
save_npz(sm.output[0], out, provenance(nodes=sm.params.nodes, **settings.asdict()))
