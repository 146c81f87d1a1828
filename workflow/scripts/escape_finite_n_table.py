from pathlib import Path

from featlearn.analysis.finite_n_tables import cell_rows, delta50_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
cells = {}
for path in sm.input.cells:
    cells.setdefault(Path(path).parent.name, []).append(load_npz(path)[0])
rows, delta50 = [], []
for model, spec in sorted(sm.params.models.items()):
    rows += cell_rows(model, spec["sweep"], cells[model])
    delta50 += delta50_rows(model, spec["sweep"], cells[model], sm.params.seed)
write_csv(sm.output.table, rows)
write_csv(sm.output.delta50, delta50)
for row in delta50:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
