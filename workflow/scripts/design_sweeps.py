from pathlib import Path

import yaml

from featlearn.analysis import design
from featlearn.io.job import logger

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
spec = sm.params.design
rows = design.load_theory_rows(sm.input.theory, sm.params.settings)
swept = design.swept_designs(rows, spec["sweeps"])
log(f"the theory asks for GD sweeps of {swept}")
for name in sorted(set(spec["sweeps"].get("include", ())) - set(swept)):
    log(f"WARNING: {name} (design.sweeps.include) has no grid anchor: no sweep")
Path(sm.output[0]).write_text(
    "# GD sweeps of the theory's best and worst designs and of design.sweeps.include (rule\n"
    "# design_sweeps, from the design theory\n"
    "# alone): give it after config.yaml and workflow/configs/design.yaml to run them.\n"
    + yaml.safe_dump(
        design.sweep_overlay(rows, swept, spec["designs"], spec["sweeps"], spec["link"]), sort_keys=False
    )
)
