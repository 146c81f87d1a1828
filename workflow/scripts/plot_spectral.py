from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
inp = sm.input
delta_alg = next(r["delta_alg"] for r in read_csv(inp.delta_alg) if r["link"] == sm.params.link)
overlaps = [row for path in inp.overlaps for row in read_csv(path)]
prediction = None
if "prediction" in inp.keys():
    prediction = figures.prediction_of(read_csv(inp.prediction), read_csv(inp.delta50), sm.params.sweep)
fig = figures.spectral_figure(
    (read_csv(inp.random_cells), read_csv(inp.random_fits)),
    (read_csv(inp.spectral_cells), read_csv(inp.spectral_fits)),
    overlaps,
    read_csv(inp.theory),
    delta_alg,
    f"gelu, y = {sm.params.link}: random vs spectral init",
    prediction,
)
figures.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
