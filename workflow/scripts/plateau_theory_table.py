import math

from featlearn.analysis.plateau_theory import observable_rows, plateau_threshold_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = {r["model"]: r for r in read_csv(sm.input.theory)}
fixed_points = {path.rsplit("/", 1)[-1].removesuffix(".npz"): path for path in sm.input.fixed_points}
spectral = read_csv(sm.input.spectral)
observables, thresholds = [], []
for activation in sm.params.activations:
    model = sm.params.theory.get(activation)
    if model not in fixed_points:
        log(f"{activation}: no theory model to compare with")
        continue
    fp = load_npz(fixed_points[model])[0]
    cells = [load_npz(path)[0] for path in sm.input[f"cells_{activation}"]]
    observables += observable_rows(activation, cells, fp)
    spec = {
        int(r["d"]): (r["delta_spec"], r["delta_spec_low"], r["delta_spec_high"])
        for r in spectral
        if r["activation"] == activation
    }
    rs = theory.get(model, {}).get("delta_nn_long_time", math.nan)
    thresholds += plateau_threshold_rows(activation, cells, rs, spec)
for row in observables + thresholds:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
write_csv(sm.output[0], observables)
write_csv(sm.output[1], thresholds)
