from featlearn.analysis.finite_n_tables import compare_rows
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv
from featlearn.plotting import figures
from featlearn.plotting.finite_n_figures import finite_n_figure

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
predicted, points = read_csv(sm.input.predicted), read_csv(sm.input.points)
measured_as = {spec["sweep"]: name for name, spec in sm.params.finite_size.items()}  # sweep → its model
rows = []
for sweep in dict.fromkeys(r["sweep"] for r in predicted):
    measured = [p for p in points if p["model"] == measured_as.get(sweep)]
    rows += compare_rows([r for r in predicted if r["sweep"] == sweep], measured)
write_csv(sm.output.table, rows)
for row in rows:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(finite_n_figure(rows, sm.params.rho_c[0]), sm.output.figure)
