from featlearn.io.job import logger
from featlearn.io.results import load_npz
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
traj, record = load_npz(sm.input.run)
p = record["params"]
title = f"{p['activation']}, y = {p['link']}, d = {p['d']}, δ = {p['delta']:g}"
figures.save(figures.grokking_figure(traj, title), sm.output)
log(f"wrote {list(sm.output)}")
