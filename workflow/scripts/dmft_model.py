from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import TheoryModelSettings  # noqa: E402
from featlearn.theory.delta_nn import dmft_model  # noqa: E402

settings = TheoryModelSettings.from_dict(sm.params.settings)
n_paths, horizon, deltas = int(sm.wildcards.n_paths), sm.params.horizon, list(sm.params.deltas)
log(f"DMFT {sm.wildcards.model}: N={n_paths} T={horizon} deltas={deltas} settings={settings}")
out = dmft_model(settings, deltas, n_paths, horizon, log)
save_npz(sm.output[0], out, provenance(n_paths=n_paths, horizon=horizon, **settings.asdict()))
