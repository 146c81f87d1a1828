from pathlib import Path

from featlearn.analysis.theory_tables import load_theory, theory_tables
from featlearn.io.job import logger
from featlearn.io.results import read_csv, write_csv
from featlearn.io.settings import JobSettings
from featlearn.io.table_names import BOUNDED_LINK_VALIDATION, THEORY_THRESHOLDS

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
models = {name: JobSettings.from_dict(s) for name, s in sm.params.models.items()}
theory = load_theory(sm.input.dmft, sm.input.fixed_point, sm.input.sim)
p = sm.params
tables = theory_tables(
    models, theory, p.n_paths, p.report_steps, p.horizon, p.validation, read_csv(sm.input.thresholds)
)
for path in sm.output:
    table = tables[Path(path).name]
    if isinstance(table, str):
        Path(path).write_text(table)
    else:
        write_csv(path, table)
    log(f"wrote {path}")
for row in tables[THEORY_THRESHOLDS] + tables[BOUNDED_LINK_VALIDATION]:
    log(" ".join(f"{k}={v}" for k, v in row.items()))
