from featlearn.io.job import logger
from featlearn.io.results import write_csv
from featlearn.io.settings import JobSettings
from featlearn.spectral.simulation import overlap_rows

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
settings = JobSettings.from_dict(sm.params.settings)
write_csv(sm.output[0], overlap_rows(settings, int(sm.wildcards.d), log))
