from pathlib import Path

from featlearn.analysis.anatomy_tables import cell_row, pooled_rows, trial_summaries
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv
from featlearn.plotting import figures
from featlearn.plotting.anatomy_figures import anatomy_figure

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
cells = {}
for path in sm.input.cells:
    cells.setdefault(Path(path).parent.name, []).append(load_npz(path)[0])
rows, pooled = [], []
for sweep, group in sorted(cells.items()):
    by_d = {}
    for cell in sorted(group, key=lambda c: (int(c["d"]), float(c["delta"]))):
        summaries = trial_summaries(cell)
        by_d.setdefault(int(cell["d"]), []).extend(summaries)
        rows.append(cell_row(sweep, cell, summaries))
    pooled += pooled_rows(sweep, by_d)
write_csv(sm.output.table, rows)
write_csv(sm.output.verdict, pooled)
for row in rows + pooled:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(anatomy_figure(cells, rows), sm.output.figure)
