from featlearn import plotting
from featlearn.joblog import logger
from featlearn.results_io import load_npz

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
traj, record = load_npz(sm.input.run)
p = record["params"]
title = f"{p['activation']}, y = {p['link']}, d = {p['d']}, δ = {p['delta']:g}"
plotting.save(plotting.grokking_figure(traj, title), sm.output)
log(f"wrote {list(sm.output)}")
