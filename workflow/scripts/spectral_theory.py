import numpy as np

from featlearn.io.job import logger
from featlearn.io.results import write_csv
from featlearn.model.links import BUILT_IN, get_link
from featlearn.spectral.simulation import delta_alg_rows, theory_rows

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
p = sm.params
write_csv(sm.output.curve, theory_rows(p.link, p.noise, np.linspace(0.3, p.delta_max, p.points)))
single_index = [name for name in BUILT_IN if get_link(name).k == 1]
single_index += [p.link] if p.link not in single_index else []  # a link expression of the config
rows = delta_alg_rows(single_index, p.noise)
write_csv(sm.output.delta_alg, rows)
for row in rows:
    log(f"delta_alg({row['link']}, noise={row['noise']}) = {row['delta_alg']:.6g}")
