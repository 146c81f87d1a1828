from featlearn.analysis.sweeps import threshold_table_rows
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
fits = [row for path in sm.input.sweeps for row in read_csv(path)]
rows = threshold_table_rows(fits, read_csv(sm.input.delta_alg))
write_csv(sm.output[0], rows)
log(f"{len(rows)} rows")
