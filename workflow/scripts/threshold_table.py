from featlearn.joblog import logger
from featlearn.results_io import read_csv, write_csv

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
rows = []
for path in sm.input.sweeps:
    for fit in read_csv(path):
        rows.append(
            {
                "kind": "delta50_gd_empirical",
                **{k: fit[k] for k in ("sweep", "activation", "link", "m", "init", "d", "trials_per_point")},
                **{k: fit[k] for k in ("delta_min", "delta_max")},
                "threshold": fit["delta50"],
                "threshold_err": fit["delta50_err"],
                "scale": fit["scale"],
                "scale_err": fit["scale_err"],
                "status": fit["status"],
            }
        )
blank = dict.fromkeys(
    ("sweep", "activation", "m", "init", "d", "trials_per_point", "delta_min", "delta_max"), ""
)
for row in read_csv(sm.input.delta_alg):
    rows.append(
        {
            "kind": "delta_alg_spectral_theory",
            **blank,
            "link": row["link"],
            "threshold": row["delta_alg"],
            "threshold_err": 0.0,
            "scale": "",
            "scale_err": "",
            "status": f"noise={row['noise']:g}",
        }
    )
write_csv(sm.output[0], [{k: r[k] for k in rows[0]} for r in rows])
log(f"{len(rows)} rows")
