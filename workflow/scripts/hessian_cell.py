import os

os.environ["NUMBA_CACHE_DIR"] = snakemake.params.cache_dir  # noqa: F821  (before numba is imported)

import numba  # noqa: E402

from featlearn.joblog import logger  # noqa: E402
from featlearn.plateau import plateau_cell  # noqa: E402
from featlearn.provenance import provenance  # noqa: E402
from featlearn.results_io import save_npz  # noqa: E402

sm = snakemake  # noqa: F821
numba.set_num_threads(sm.threads)
log = logger(sm.log[0])
s = dict(sm.params.settings)
delta = float(sm.wildcards.delta)
log(f"plateau cell {s['activation']} d={s['d']} delta={delta}: {s}")
cell = plateau_cell(s, s["d"], delta, s["seeds"], s["checkpoints"], s["grad_tol"], s["k"], log)
save_npz(sm.output[0], cell, provenance(delta=delta, **s))
