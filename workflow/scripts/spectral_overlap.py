from featlearn.joblog import logger
from featlearn.results_io import write_csv
from featlearn.spectral_sim import overlap_rows

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
spec = sm.params.spec
rows = overlap_rows(
    sm.params.seed, spec["link"], spec["noise"], int(sm.wildcards.d), spec["delta"], spec["trials"], log
)
write_csv(sm.output[0], rows)
