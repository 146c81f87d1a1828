import os

os.environ["NUMBA_CACHE_DIR"] = snakemake.params.cache_dir  # noqa: F821  (before numba is imported)

from featlearn.io.job import logger  # noqa: E402
from featlearn.io.warmup import warm_modules  # noqa: E402

log = logger(snakemake.log[0])  # noqa: F821
log(f"compiling the kernels of {snakemake.wildcards.script}.py into {snakemake.params.cache_dir}")  # noqa: F821
warm_modules(snakemake.params.modules, log)  # noqa: F821
log("done")
