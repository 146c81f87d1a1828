from featlearn.io.job import logger
from featlearn.io.results import load_npz
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
cells = sorted((load_npz(p)[0] for p in sm.input.cells), key=lambda c: float(c["delta"]))
for cell in cells:
    log(f"delta={float(cell['delta']):g}: lambda_min={float(cell['lambda_min']):.5f}")
figures.save(figures.landscape_figure(cells), sm.output)
