import os

os.environ["NUMBA_CACHE_DIR"] = snakemake.params.cache_dir  # noqa: F821  (before numba is imported)

import numba  # noqa: E402

from featlearn.joblog import logger  # noqa: E402
from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402
from featlearn.sweep import run_cell  # noqa: E402

sm = snakemake  # noqa: F821
numba.set_num_threads(sm.threads)
log = logger(sm.log[0])
d, delta = int(sm.wildcards.d), float(sm.wildcards.delta)
settings = dict(sm.params.settings)
log(f"cell d={d} delta={delta}: {settings}")
cell = run_cell(settings, d, delta, log=log)
save_npz(sm.output[0], cell, provenance(d=d, delta=delta, **settings))
log(f"successes {int(cell['success'].sum())}/{settings['trials']}")
