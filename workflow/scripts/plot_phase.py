from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
prediction = None
if "prediction" in sm.input.keys():
    prediction = figures.prediction_of(
        read_csv(sm.input.prediction), read_csv(sm.input.delta50), sm.params.sweep
    )
fig = figures.phase_figure(
    read_csv(sm.input.cells), read_csv(sm.input.thresholds), sm.params.title, prediction=prediction
)
figures.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
