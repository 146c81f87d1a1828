from featlearn.analysis.prediction_tables import delta50_rows, prediction_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv
from featlearn.pipeline.settings import PredictionSettings
from featlearn.plotting import figures, theory_figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
long_time = {r["model"]: r["delta_nn_long_time"] for r in read_csv(sm.input.theory)}
rows, delta50, panels = [], [], []
for model, spec in sm.params.models.items():
    settings = PredictionSettings.from_dict(sm.params.settings[model])
    cells = [load_npz(p)[0] for p in sm.input[f"cells_{model}"]]
    sweep_rows = read_csv(sm.input[f"sweep_{model}"])
    fits = read_csv(sm.input[f"fits_{model}"])
    model_rows = prediction_rows(model, spec["sweep"], cells, sweep_rows)
    model_delta50 = delta50_rows(
        model, settings, spec["sweep"], cells, fits, long_time.get(model, float("nan")), sm.params.tolerance
    )
    rows += model_rows
    delta50 += model_delta50
    panels.append((model, settings, model_rows, model_delta50, sweep_rows, fits))
write_csv(sm.output.table, rows)
write_csv(sm.output.delta50, delta50)
for row in delta50:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(theory_figures.prediction_figure(panels), sm.output.figure)
