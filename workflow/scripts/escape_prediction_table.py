from featlearn.analysis.prediction_tables import delta50_rows, kick_scan_rows, prediction_rows, two_stage_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv
from featlearn.io.settings import JobSettings
from featlearn.plotting import figures, theory_figures

# One script for both predictions: level "rho_c" (the linear process) or "t0" (the two stages,
# which also writes its kick scans).
sm = snakemake  # noqa: F821
log = logger(sm.log[0])
level = sm.params.level
two_stage = level == "t0"
model_rows_of = two_stage_rows if two_stage else prediction_rows
long_time = {r["model"]: r["delta_nn_long_time"] for r in read_csv(sm.input.theory)}
rows, delta50, scans, panels = [], [], [], []
for model, spec in sm.params.models.items():
    settings = JobSettings.from_dict(sm.params.settings[model])
    cells = [load_npz(p)[0] for p in sm.input[f"cells_{model}"]]
    sweep_rows = read_csv(sm.input[f"sweep_{model}"])
    fits = read_csv(sm.input[f"fits_{model}"])
    model_rows = model_rows_of(model, spec["sweep"], cells, sweep_rows)
    limit, tolerance = long_time.get(model, float("nan")), sm.params.tolerance
    model_delta50 = delta50_rows(model, settings, spec["sweep"], cells, fits, limit, tolerance, level)
    rows += model_rows
    delta50 += model_delta50
    if two_stage:
        scans += kick_scan_rows(model, cells)
    panels.append((model, settings, model_rows, model_delta50, sweep_rows, fits))
write_csv(sm.output.table, rows)
write_csv(sm.output.delta50, delta50)
if two_stage:
    write_csv(sm.output.scans, scans)
for row in delta50 + scans:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(theory_figures.prediction_figure(panels, level), sm.output.figure)
