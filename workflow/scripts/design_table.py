import json
from pathlib import Path
from types import SimpleNamespace

import yaml

from featlearn.analysis import design
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv
from featlearn.plotting import figures, theory_figures
from featlearn.spectral.method import weak_recovery_threshold

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
spec = sm.params.design
rows = [
    design.theory_row(Path(p).stem, SimpleNamespace(**sm.params.settings[Path(p).stem]), load_npz(p)[0])
    for p in sm.input.theory
]
swept = design.swept_designs(rows, spec["sweeps"]["best"], spec["sweeps"]["worst"])
overlay = design.sweep_overlay(rows, swept, spec["designs"], spec["sweeps"], spec["link"])
rows += [design.family_row(json.loads(Path(p).read_text())) for p in sm.input.family]
thresholds = {
    name: read_csv(next(p for p in sm.input.thresholds if Path(p).name == f"{sweep}_thresholds.csv"))
    for name, sweep in sm.params.swept.items()
}
d = max(spec["sweeps"]["d"])
rows = design.finish_rows(rows, weak_recovery_threshold(spec["link"]), thresholds, d)
for r in rows:
    status, rank = r["long_time_status"], r["theory_rank"]
    log(f"{r['design']}: delta_NN(inf) = {r['delta_nn_inf']:.4g} ({status}), rank {rank}")
log(f"the theory asks for sweeps of {swept}; Spearman at d = {d}: {rows[0]['spearman_rho']:.3g}")
write_csv(sm.output.table, rows)
Path(sm.output.overlay).write_text(
    "# GD sweeps of the theory's best and worst designs (written by the design table; give it after\n"
    "# config.yaml and workflow/configs/design.yaml to run them).\n"
    + yaml.safe_dump(overlay, sort_keys=False)
)
correlation = (rows[0]["spearman_rho"], rows[0]["spearman_p"], rows[0]["spearman_designs"])
figures.save(theory_figures.design_figure(rows, d, correlation), sm.output.figure)
