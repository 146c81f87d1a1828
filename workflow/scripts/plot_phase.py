from featlearn import plotting
from featlearn.joblog import logger
from featlearn.results_io import read_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
fig = plotting.phase_figure(read_csv(sm.input.cells), read_csv(sm.input.thresholds), sm.params.title)
plotting.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
