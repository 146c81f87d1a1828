import math

from featlearn.analysis.spectral_threshold import spectral_threshold_rows, trend
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = {r["model"]: r["delta_nn_long_time"] for r in read_csv(sm.input.theory)}
rows = []
for activation in sm.params.activations:
    model = sm.params.theory.get(activation, "")
    limit = theory.get(model, math.nan)
    cells = [load_npz(path)[0] for path in sm.input[f"cells_{activation}"]]
    per_d = spectral_threshold_rows(activation, cells)
    summary = trend(per_d)
    log(f"{activation}: weighted mean {summary['mean']:.3g} +- {summary['mean_err']:.2g}, {summary}")
    for row in per_d:
        rows.append(row | {"theory_model": model, "delta_nn_long_time": limit} | summary)
        log(
            f"{activation} d={row['d']}: delta_spec = {row['delta_spec']:.3g} "
            f"[{row['delta_spec_low']:.3g}, {row['delta_spec_high']:.3g}] vs delta_NN(inf) = {limit:.3g}"
        )
write_csv(sm.output[0], rows)
