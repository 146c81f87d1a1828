from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
# inputs are ordered like the (activation, sweep) pairs of the config's width groups
names = [(act, name) for act, group in sm.params.groups.items() for name in group]
groups = {}
for (act, name), cells, fits in zip(names, sm.input.cells, sm.input.fits, strict=True):
    groups.setdefault(act, []).append((sm.params.widths[name], read_csv(cells), read_csv(fits)))
figures.save(figures.width_figure(groups), sm.output)
log(f"wrote {list(sm.output)}")
