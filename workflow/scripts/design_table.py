import json
from pathlib import Path

from featlearn.analysis import design
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv
from featlearn.plotting import figures, theory_figures
from featlearn.spectral.method import weak_recovery_threshold

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
spec = sm.params.design
rows = design.load_theory_rows(sm.input.theory, sm.params.settings)
chosen = design.swept_designs(rows, spec["sweeps"])
if set(chosen) != set(sm.params.swept):
    log(f"WARNING: the sweeps measure {sorted(sm.params.swept)}, the theory now asks for {sorted(chosen)}")
rows += [design.family_row(json.loads(Path(p).read_text())) for p in sm.input.family]
thresholds = {
    name: read_csv(next(p for p in sm.input.thresholds if Path(p).name == f"{sweep}_thresholds.csv"))
    for name, sweep in sm.params.swept.items()
}
d = max(spec["sweeps"]["d"])
design.finish_rows(rows, weak_recovery_threshold(spec["link"]), thresholds, d)
for r in rows:
    status, rank = r["long_time_status"], r["theory_rank"]
    log(f"{r['design']}: delta_NN(inf) = {r['delta_nn_inf']:.4g} ({status}), rank {rank}")
log(f"Spearman at d = {d}: {rows[0]['spearman_rho']:.3g} over {rows[0]['spearman_designs']} designs")
write_csv(sm.output.table, rows)
correlation = (rows[0]["spearman_rho"], rows[0]["spearman_p"], rows[0]["spearman_designs"])
figures.save(theory_figures.design_figure(rows, d, correlation), sm.output.figure)
