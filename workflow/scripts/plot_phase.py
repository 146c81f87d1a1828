from featlearn.analysis.threshold_lines import threshold_lines
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
theory = None
if "theory" in sm.input.keys():
    theory = next((r for r in read_csv(sm.input.theory) if r["model"] == sm.params.lines["theory"]), None)
finite_n = read_csv(sm.input.finite_n) if "finite_n" in sm.input.keys() else None
lines = threshold_lines(theory, finite_n, sm.params.lines, sm.params.sweep)
fig = figures.phase_figure(
    read_csv(sm.input.cells),
    read_csv(sm.input.thresholds),
    sm.params.title,
    prediction=prediction,
    lines=lines,
)
for key, label, x, *_ in lines:
    log(f"threshold line {key}: {label} at {x}")
figures.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
