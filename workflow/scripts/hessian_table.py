from featlearn.analysis.hessian_tables import plateau_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = plateau_rows(sm.wildcards.activation, [load_npz(path)[0] for path in sm.input.cells])
write_csv(sm.output[0], rows)
log(f"{len(rows)} rows")
