from featlearn import plotting
from featlearn.joblog import logger
from featlearn.results_io import read_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
sweeps = {name: read_csv(path) for name, path in zip(sm.params.sweeps, sm.input.tables, strict=True)}
plotting.save(plotting.escape_figure(sweeps), sm.output)
log(f"wrote {list(sm.output)}")
