from featlearn.analysis.sweeps import learning_step_rows
from featlearn.io.job import logger
from featlearn.io.results import load_cells, write_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
runs, rows = [], []
for cell, _ in load_cells(sm.input.cells):
    runs.append((float(cell["delta"]), cell["steps"], cell["direction_overlap"], cell["neuron_overlap"]))
    rows += learning_step_rows(cell, sm.params.level)
for row in rows:
    log(str(row))
write_csv(sm.output.table, rows)
figures.save(figures.easy_hard_figure(runs), sm.output.figure)
