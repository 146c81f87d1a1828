from pathlib import Path

import yaml

from featlearn.analysis.finite_size import crossing_estimates, group_cells, refined_grid
from featlearn.io.job import logger
from featlearn.io.results import read_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
offsets, step = sm.params.refine["offsets"], sm.params.refine["step"]
overlay = {}
for model, spec in sm.params.models.items():
    sweep, grids = spec["sweep"], sm.params.grids[spec["sweep"]]
    estimates = crossing_estimates(group_cells(read_csv(sm.input[f"cells_{model}"])), [int(d) for d in grids])
    delta_at = {}
    for d, existing in grids.items():
        centre, width, source = estimates[int(d)]
        delta_at[int(d)] = refined_grid(existing, centre, width, offsets, step)
        log(f"{sweep} d={d}: crossing {centre:.3f}, width {width:.3f} ({source}) -> {delta_at[int(d)]}")
    overlay[sweep] = {"delta_at": delta_at}
Path(sm.output[0]).write_text(
    "# Second pass of the finite-size sweeps (docs/finite_size.md, eq. (F8)), written by finite_size_refine\n"
    "# from the cells run so far: give it after the configs it was built from.\n"
    + yaml.safe_dump({"sweeps": overlay}, sort_keys=False)
)
