from featlearn.jobsetup import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402
from featlearn.theory import dmft_model  # noqa: E402

s = dict(sm.params.settings)
paths, horizon, deltas = int(sm.wildcards.paths), sm.params.horizon, list(sm.params.deltas)
log(f"DMFT {sm.wildcards.model}: N={paths} T={horizon} deltas={deltas} settings={s}")
identity = (s["seed"], "dmft", s["experiment"], s["activation"], s["link"])
out = dmft_model(s, deltas, paths, horizon, identity, log)
save_npz(sm.output[0], out, provenance(paths=paths, horizon=horizon, **s))
