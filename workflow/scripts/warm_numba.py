import os

os.environ["NUMBA_CACHE_DIR"] = snakemake.params.cache_dir  # noqa: F821  (before numba is imported)

from featlearn.joblog import logger  # noqa: E402
from featlearn.warmup import compile_kernels  # noqa: E402

log = logger(snakemake.log[0])  # noqa: F821
log(f"compiling kernels into {snakemake.params.cache_dir}")  # noqa: F821
compile_kernels()
log("done")
