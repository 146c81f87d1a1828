from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
fig = figures.phase_figure(read_csv(sm.input.cells), read_csv(sm.input.thresholds), sm.params.title)
figures.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
