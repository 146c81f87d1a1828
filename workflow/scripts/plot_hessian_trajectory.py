from featlearn.io.job import logger
from featlearn.io.results import load_npz
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
runs = {}
for path in sm.input.cells:
    cell, record = load_npz(path)
    p = record["params"]
    runs.setdefault(p["activation"], []).append(
        (
            p["delta"],
            cell["checkpoint_steps"][0],
            cell["checkpoint_eigenvalues"][0, :, 0],
            cell["checkpoint_bulk_edge"][0],
            cell["checkpoint_overlap2"][0, :, 0],
        )
    )
figures.save(figures.hessian_trajectory_figure(runs), sm.output)
log(f"wrote {list(sm.output)}")
