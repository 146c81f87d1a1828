from featlearn.io.job import logger, use_job_kernels
from featlearn.io.warmup import reset_kernel_cache, seed_kernel_cache, warm_modules

sm = snakemake  # noqa: F821
reset_kernel_cache(sm.params.cache_dir)
use_job_kernels(sm)  # before warm_modules imports numba and the activation kernel
log = logger(sm.log[0])
seed_kernel_cache(sm.params.bases, sm.params.cache_dir, log)
log(f"compiling the kernels of {sm.wildcards.script}.py into {sm.params.cache_dir}")
warm_modules(sm.params.modules, log)
log("done")
