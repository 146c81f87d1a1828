from featlearn import plotting
from featlearn.aggregate import learning_step_rows
from featlearn.joblog import logger
from featlearn.results_io import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
runs, rows = [], []
for path in sm.input.cells:
    cell, _ = load_npz(path)
    runs.append((float(cell["delta"]), cell["steps"], cell["direction_overlap"]))
    rows += learning_step_rows(cell, sm.params.level)
for row in rows:
    log(str(row))
write_csv(sm.output.table, rows)
plotting.save(plotting.easy_hard_figure(runs), sm.output.figure)
