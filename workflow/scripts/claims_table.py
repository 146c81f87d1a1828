from functools import cache
from pathlib import Path

from featlearn.analysis.claims import Results, claim_rows, paper_correspondence
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
tables = {Path(p).name: p for p in sm.input.tables}


@cache  # every claim reads thresholds.csv: once is enough
def read(name):
    return read_csv(tables[name]) if name in tables else []


results = Results(read, load_npz(sm.input.grokking)[0])
rows = claim_rows(results, sm.params.tolerance, sm.params.roles, sm.params.paper)
write_csv(sm.output.table, rows)
write_csv(
    sm.output.correspondence,
    paper_correspondence(results, sm.params.tolerance, sm.params.roles, sm.params.paper),
)
for row in rows:
    log(f"claim {row['claim']}: {row['verdict']} | {row['paper']} | {row['measured']}")
