from featlearn import plotting
from featlearn.joblog import logger
from featlearn.results_io import load_npz

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
plotting.save(plotting.hessian_trajectory_figure(runs), sm.output)
log(f"wrote {list(sm.output)}")
