import math

from featlearn.analysis.finite_size import finite_size_analysis
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv
from featlearn.model.seeds import identity_entropy
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = {r["model"]: r for r in read_csv(sm.input.theory)}
laws, points, collapse, panels = [], [], [], []
for model, spec in sm.params.models.items():
    seed = (identity_entropy(sm.params.seed, "finite_size", model),)
    rows = read_csv(sm.input[f"cells_{model}"])
    out = finite_size_analysis(rows, model, n_boot=sm.params.bootstrap, seed=seed, level=sm.params.level)
    delta_nn = float(theory[spec["theory"]]["delta_nn_long_time"]) if "theory" in spec else math.nan
    paper = float(sm.params.paper[spec["paper"]]) if "paper" in spec else math.nan
    for row in out["laws"]:
        row |= {"sweep": spec["sweep"], "delta_nn_long_time": delta_nn, "paper": paper}
        law, value = row["law"], row["delta_inf"]
        log(f"{model} {law}: delta_inf = {value:.3f} ({row['status']}, chosen {row['chosen']})")
    laws += out["laws"]
    points += out["per_d"]
    collapse += out["collapse"]
    for quality in out["collapse_quality"]:  # (F6): one scaling form for every d?
        log(f"{model} collapse ({quality['width']} width): deviance/dof = {quality['deviance_per_dof']:.3g}")
    panels.append((model, out["per_d"], out["laws"], out["curves"], delta_nn, paper))
write_csv(sm.output.table, laws)
write_csv(sm.output.points, points)
write_csv(sm.output.collapse, collapse)
figures.save(figures.finite_size_figure(panels), sm.output.figure)
