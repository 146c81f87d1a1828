from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
sweeps = {name: read_csv(path) for name, path in zip(sm.params.sweeps, sm.input.tables, strict=True)}
figures.save(figures.sweep_escape_steps_figure(sweeps), sm.output)
log(f"wrote {list(sm.output)}")
