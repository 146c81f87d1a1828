from pathlib import Path

from featlearn.analysis.conventions import scan_rows, score_rows
from featlearn.io.job import logger
from featlearn.io.results import load_npz, write_csv
from featlearn.plotting import figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
keys = sm.params.conventions
scans = {}
for path in sm.input.scans:
    activation, d = Path(path).stem.rsplit("_d", 1)
    scans[(Path(path).parent.name, activation, int(d))] = load_npz(path)[0]
plateaus = {Path(p).stem: load_npz(p)[0] for p in sm.input.plateaus}
per_scan, fits = scan_rows(scans, keys)
rows = score_rows(keys, fits, plateaus, sm.params.paper, sm.params.tolerance)
write_csv(sm.output.scans, per_scan)
write_csv(sm.output.table, rows)
for row in rows:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
figures.save(figures.convention_figure(rows, sm.params.paper), sm.output.figure)
