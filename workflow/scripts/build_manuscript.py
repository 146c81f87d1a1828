import json
from pathlib import Path

import typst

from featlearn.analysis.manuscript_numbers import numbers, phase_line_words, results_index
from featlearn.io.job import logger
from featlearn.io.results import load_npz, read_csv
from featlearn.io.table_names import (
    DELTA50_FINITE_N,
    DELTA50_FINITE_N_VS_GD,
    DESIGN,
    ESCAPE_ANATOMY_VERDICT,
    PAPER_CORRESPONDENCE,
    PLATEAU_THRESHOLD,
    SPECTRAL_THRESHOLD,
)

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
tables = {Path(p).name: read_csv(p) for p in [*sm.input.tables, sm.input.prediction]}
extra = (
    DESIGN,
    SPECTRAL_THRESHOLD,
    PLATEAU_THRESHOLD,
    ESCAPE_ANATOMY_VERDICT,
    DELTA50_FINITE_N,
    DELTA50_FINITE_N_VS_GD,
    PAPER_CORRESPONDENCE,
)  # tables of optional config sections
tables |= {Path(p).name: read_csv(p) for p in sm.input.index if Path(p).name in extra}
claims = read_csv(sm.input.claims)
landscape = [load_npz(p)[0] for p in sm.input.landscape]
benchmarks = [  # the compute jobs' (seconds, max RSS), declared inputs of this rule
    (p, *(float(v) for v in Path(p).read_text().splitlines()[1].split("\t")[:3:2]))
    for p in sm.input.benchmarks
]
out = numbers(
    tables,
    claims,
    load_npz(sm.input.grokking)[0],
    landscape,
    benchmarks,
    sm.params.config_name,
    sm.params.paper,
    sm.params.design_stem,
)
out["phase_lines"] = phase_line_words(tables, sm.params.phase_lines, sm.params.figures)
out["index"] = results_index(sm.params.index, {Path(p).name: read_csv(p) for p in sm.input.index})
out["figures"] = {stem: "/" + path for stem, path in sm.params.figures.items()}
Path(sm.output.numbers).write_text(json.dumps(out, indent=1, ensure_ascii=False))
inputs = {"numbers": "/" + sm.output.numbers}
typst.compile(sm.input.source, output=sm.output.pdf, root=".", sys_inputs=inputs)
log(f"{sm.output.pdf}: {Path(sm.output.pdf).stat().st_size} bytes")
pages = typst.compile(sm.input.source, format="png", ppi=110, root=".", sys_inputs=inputs)
Path(sm.output.page).write_bytes(pages[0] if isinstance(pages, list) else pages)
