from pathlib import Path

from featlearn import plotting
from featlearn.joblog import logger
from featlearn.results_io import read_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
tables = {Path(p).stem.removeprefix("hessian_"): read_csv(p) for p in sm.input.tables}
plotting.save(plotting.hessian_delta_figure(tables), sm.output)
log(f"wrote {list(sm.output)}")
