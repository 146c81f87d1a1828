from featlearn.analysis.sweeps import cell_summary, threshold_rows
from featlearn.io.job import logger
from featlearn.io.results import load_cells, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = []
for cell, record in load_cells(sm.input.cells):
    rows.append(cell_summary(sm.wildcards.sweep, record["params"], cell))
rows.sort(key=lambda r: (r["d"], r["delta"]))
fits = threshold_rows(rows)
write_csv(sm.output.cells, rows)
write_csv(sm.output.thresholds, fits)
for fit in fits:
    log(f"d={fit['d']}: delta50 = {fit['delta50']:.3f} +- {fit['delta50_err']:.3f} ({fit['status']})")
