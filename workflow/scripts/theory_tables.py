from pathlib import Path

from featlearn import theory_compare as tc
from featlearn.joblog import logger
from featlearn.results_io import read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
models, cfg = dict(sm.params.models), dict(sm.params.theory)
theory = tc.load_theory(sm.input.dmft, sm.input.fixed_point, sm.input.sim)
main = cfg["paths"]
out = {Path(p).name: p for p in sm.output}

rows = tc.threshold_rows(models, theory, main, cfg["report_steps"], read_csv(sm.input.thresholds))
write_csv(out["theory_thresholds.csv"], rows)
Path(out["theory_thresholds.tex"]).write_text(tc.latex_table(rows, cfg["report_steps"], main))
for r in rows:
    log(" ".join(f"{k}={v}" for k, v in r.items()))

agreement, outliers = [], []
for name, th in theory.items():
    for cell in th["sim"].values():
        agreement.append(tc.trajectory_agreement(name, th["dmft"][main], cell, cfg["horizon"]))
        outliers += tc.outlier_agreement(name, th["dmft"][main], cell)
write_csv(out["dmft_vs_simulation.csv"], agreement)
write_csv(out["outlier_vs_simulation.csv"], outliers)

val = cfg["validation"]
row = tc.validation_row(
    val["model"], theory[val["model"]]["dmft"][main], theory[val["model"]]["sim"], val["step"]
)
write_csv(out["bounded_link_validation.csv"], [row])
log(f"validation: {row}")
