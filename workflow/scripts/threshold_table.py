from featlearn.joblog import logger
from featlearn.results_io import read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = [row for path in sm.input for row in read_csv(path)]
write_csv(sm.output[0], rows)
log(f"{len(rows)} rows")
