from pathlib import Path

from featlearn.analysis.escape_tables import signal_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = []
for path in sm.input.cells:
    rows += signal_rows(Path(path).parent.name, load_npz(path)[0], sm.params.report_steps)
write_csv(sm.output[0], rows)
for row in rows:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
