from featlearn.io.job import start_job

sm = snakemake  # noqa: F821
log = start_job(sm)  # before any kernel module is imported (numba cache dir)

from featlearn.gd.conventions import scan  # noqa: E402
from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz  # noqa: E402
from featlearn.pipeline.settings import SweepSettings  # noqa: E402

settings = SweepSettings.from_dict(sm.params.settings)
d = int(sm.wildcards.d)
log(f"convention {sm.wildcards.convention}, d={d}: {settings}")
out = scan(settings, d, sm.params.coarse, sm.params.refine, sm.params.rule, log)
record = provenance(convention=sm.wildcards.convention, d=d, rule=sm.params.rule, **settings.asdict())
save_npz(sm.output[0], out, record)
