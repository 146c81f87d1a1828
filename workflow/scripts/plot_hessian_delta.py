from pathlib import Path

from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
tables = {Path(p).stem.removeprefix("hessian_"): read_csv(p) for p in sm.input.tables}
models = {Path(p).stem: load_npz(p)[0] for p in sm.input.fixed_points}
fixed_points = {act: models[model] for act, model in sm.params.overlay.items() if act in tables}
figures.save(figures.hessian_delta_figure(tables, fixed_points), sm.output)
log(f"wrote {list(sm.output)}")
