from featlearn.io.job import logger
from featlearn.io.results import load_npz
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
panels = []
for path in sm.input.cells:
    cell, record = load_npz(path)
    p = record["params"]
    panels.append(
        (
            f"{p['activation']}, d={p['d']}, δ={p['delta']:g}",
            cell["bulk"][0],
            float(cell["eigenvalues"][0, 0]),
            float(cell["overlap2"][0, 0]),
            float(cell["bulk_edge"][0]),
        )
    )
figures.save(figures.hessian_spectrum_figure(panels), sm.output)
log(f"wrote {list(sm.output)}")
