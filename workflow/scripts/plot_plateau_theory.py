from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures
from featlearn.plotting.theory_figures import plateau_vs_theory_figure

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
figures.save(plateau_vs_theory_figure(read_csv(sm.input.table)), sm.output)
log(f"wrote {list(sm.output)}")
