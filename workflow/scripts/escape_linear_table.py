from pathlib import Path

from featlearn.analysis.escape_tables import linear_stage_rows, referee_trial_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv
from featlearn.plotting import figures, theory_figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
cells = {(Path(p).parent.name, float(load_npz(p)[0]["delta"])): load_npz(p)[0] for p in sm.input.cells}
rows = [
    row
    for (model, _), cell in sorted(cells.items())
    for row in linear_stage_rows(model, cell, sm.params.report_steps)
]
write_csv(sm.output.table, rows)
referee = [
    row
    for (model, _), cell in sorted(cells.items())
    for row in referee_trial_rows(model, cell, sm.params.report_steps)
]
write_csv(sm.output.referee, referee)
for row in rows:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(theory_figures.linear_stage_figure(cells), sm.output.figure)
