from featlearn.analysis.prediction_tables import delta50_rows, kick_scan_rows, two_stage_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv
from featlearn.pipeline.settings import TwoStageSettings
from featlearn.plotting import figures, theory_figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
long_time = {r["model"]: r["delta_nn_long_time"] for r in read_csv(sm.input.theory)}
rows, delta50, scans, panels = [], [], [], []
for model, spec in sm.params.models.items():
    settings = TwoStageSettings.from_dict(sm.params.settings[model])
    cells = [load_npz(p)[0] for p in sm.input[f"cells_{model}"]]
    sweep_rows = read_csv(sm.input[f"sweep_{model}"])
    fits = read_csv(sm.input[f"fits_{model}"])
    model_rows = two_stage_rows(model, spec["sweep"], cells, sweep_rows)
    limit, tolerance = long_time.get(model, float("nan")), sm.params.tolerance
    model_delta50 = delta50_rows(model, settings, spec["sweep"], cells, fits, limit, tolerance, "t0")
    rows += model_rows
    delta50 += model_delta50
    scans += kick_scan_rows(model, cells)
    panels.append((model, settings, model_rows, model_delta50, sweep_rows, fits))
write_csv(sm.output.table, rows)
write_csv(sm.output.delta50, delta50)
write_csv(sm.output.scans, scans)
for row in delta50 + scans:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(theory_figures.prediction_figure(panels, "t0"), sm.output.figure)
