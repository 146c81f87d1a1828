from pathlib import Path

from featlearn import theory_compare as tc
from featlearn.joblog import logger
from featlearn.results_io import read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
models, cfg = dict(sm.params.models), dict(sm.params.theory)
theory = tc.load_theory(sm.input.dmft, sm.input.fixed_point, sm.input.sim)
paths = dict(sm.params.paths)  # the main N of each model
out = {Path(p).name: p for p in sm.output}

rows = tc.threshold_rows(models, theory, paths, cfg["report_steps"], read_csv(sm.input.thresholds))
write_csv(out["theory_thresholds.csv"], rows)
Path(out["theory_thresholds.tex"]).write_text(tc.latex_table(rows, cfg["report_steps"]))
for r in rows:
    log(" ".join(f"{k}={v}" for k, v in r.items()))

agreement, outliers = [], []
for name, th in theory.items():
    for cell in th["sim"].values():
        agreement.append(tc.trajectory_agreement(name, th["dmft"][paths[name]], cell, cfg["horizon"]))
        outliers += tc.outlier_agreement(name, th["dmft"][paths[name]], cell)
write_csv(out["dmft_vs_simulation.csv"], agreement)
write_csv(out["outlier_vs_simulation.csv"], outliers)

val = cfg["validation"]
row = tc.validation_row(
    val["model"], theory[val["model"]]["dmft"][paths[val["model"]]], theory[val["model"]]["sim"], val["step"]
)
write_csv(out["bounded_link_validation.csv"], [row])
log(f"validation: {row}")
