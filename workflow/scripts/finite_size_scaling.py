import math
from functools import partial

from featlearn.analysis.finite_size import finite_size_analysis
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv
from featlearn.model.seeds import identity_entropy
from featlearn.pipeline.resources import gd_cell_mem_mb, sweep_core_hours
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = {r["model"]: r for r in read_csv(sm.input.theory)}
tables = {"laws": [], "per_d": [], "summary": [], "collapse": [], "decide": []}
panels = []
models = sm.params.models
for i, (model, spec) in enumerate(models.items()):
    seed = (identity_entropy(sm.params.seed, "finite_size", model),)
    rows = read_csv(sm.input[f"cells_{model}"])
    log(f"model {model} ({i + 1}/{len(models)}): {len(rows)} cells, {sm.params.bootstrap} replicates")
    delta_nn = float(theory[spec["theory"]]["delta_nn_long_time"]) if "theory" in spec else math.nan
    pricing = dict(sm.params.pricing[model])
    n_test = pricing.pop("n_test")
    out = finite_size_analysis(
        rows,
        model,
        n_boot=sm.params.bootstrap,
        seed=seed,
        level=sm.params.level,
        range_factor=sm.params.limit_range,
        min_points=sm.params.min_d,
        delta_nn=delta_nn,
        price=partial(sweep_core_hours, **pricing),
        memory=partial(gd_cell_mem_mb, n_test=n_test, dtype=pricing["dtype"]),
    )
    paper = float(sm.params.paper[spec["paper"]]) if "paper" in spec else math.nan
    context = {"sweep": spec["sweep"], "delta_nn_long_time": delta_nn, "paper": paper}
    for row in out["laws"] + out["summary"]:
        row |= context
    summary = out["summary"][0]
    slope = summary.get("slope", math.nan)
    log(
        f"{model}: slope {slope:.3g}/doubling; delta_inf under the power and log laws "
        f"{summary['limit_status']} (no finite d decide it, (F16))"
    )
    for quality in out["collapse_quality"]:  # (F11): one scaling form for every d?
        log(f"{model} collapse ({quality['width']} width): deviance/dof = {quality['deviance_per_dof']:.3g}")
    for part in tables:
        tables[part] += out[part]
    panels.append((model, out["per_d"], out["laws"], summary, out["curves"], delta_nn, paper))
write_csv(sm.output.table, tables["laws"])
write_csv(sm.output.summary, tables["summary"])
write_csv(sm.output.points, tables["per_d"])
write_csv(sm.output.collapse, tables["collapse"])
write_csv(sm.output.decide, tables["decide"])
figures.save(figures.finite_size_figure(panels), sm.output.figure)
