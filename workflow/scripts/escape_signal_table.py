from pathlib import Path

from featlearn.analysis.escape_tables import signal_end_rows, signal_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows, ends = [], []
for path in sm.input.cells:
    cell = load_npz(path)[0]
    rows += signal_rows(Path(path).parent.name, cell, sm.params.report_steps)
    ends += signal_end_rows(Path(path).parent.name, cell)
write_csv(sm.output.table, rows)
write_csv(sm.output.runs, ends)
for row in rows:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
