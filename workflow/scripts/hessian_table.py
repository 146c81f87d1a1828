from featlearn.joblog import logger
from featlearn.results_io import load_npz, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = []
for path in sm.input.cells:
    cell, record = load_npz(path)
    for seed in range(cell["eigenvalues"].shape[0]):
        rows.append(
            {
                "activation": sm.wildcards.activation,
                "d": int(cell["d"]),
                "delta": float(cell["delta"]),
                "seed": seed,
                "steps": int(cell["final_step"][seed]),
                "converged": bool(cell["converged"][seed]),
                "train_loss": float(cell["final_train_loss"][seed]),
                "norm": float(cell["final_norm"][seed]),
                "lambda_min": float(cell["eigenvalues"][seed, 0]),
                "overlap2": float(cell["overlap2"][seed, 0]),
                "bulk_edge": float(cell["bulk_edge"][seed]),
                "hard_block": float(cell["hard_block"][seed]),
                "semi_empirical_outlier": float(cell["predicted_outlier"][seed]),
                "semi_empirical_overlap2": float(cell["predicted_overlap2"][seed]),
                "semi_empirical_bulk_edge": float(cell["predicted_bulk_edge"][seed]),
                # the criterion for the aligned negative outlier
                "negative_aligned": bool(
                    cell["eigenvalues"][seed, 0] < 0 and cell["overlap2"][seed, 0] > 0.1
                ),
            }
        )
write_csv(sm.output[0], rows)
log(f"{len(rows)} rows")
