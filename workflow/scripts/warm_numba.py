from featlearn.io.job import logger, use_kernel_cache
from featlearn.io.warmup import warm_modules

sm = snakemake  # noqa: F821
use_kernel_cache(sm.params.cache_dir)  # before warm_modules imports numba
log = logger(sm.log[0])
log(f"compiling the kernels of {sm.wildcards.script}.py into {sm.params.cache_dir}")
warm_modules(sm.params.modules, log)
log("done")
