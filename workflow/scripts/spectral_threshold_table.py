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
    summary = {}
    for estimator in ("delta_spec", "lambda_crossing"):
        across = trend(per_d, estimator)
        summary |= {f"{estimator}_{key}": value for key, value in across.items()}
        log(f"{activation} {estimator} across d: {across}")
    for row in per_d:
        rows.append(row | {"theory_model": model, "delta_nn_long_time": limit} | summary)
        log(
            f"{activation} d={row['d']}: aligned crossing {row['delta_spec']:.3g} "
            f"[{row['delta_spec_low']:.3g}, {row['delta_spec_high']:.3g}], lambda_min crossing "
            f"{row['lambda_crossing']:.3g} [{row['lambda_crossing_low']:.3g}, "
            f"{row['lambda_crossing_high']:.3g}] (degree {row['lambda_degree']}) "
            f"vs delta_NN(inf) = {limit:.3g}"
        )
write_csv(sm.output[0], rows)
