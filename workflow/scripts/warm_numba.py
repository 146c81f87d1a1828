from featlearn.io.job import logger, use_job_kernels
from featlearn.io.warmup import warm_modules

sm = snakemake  # noqa: F821
use_job_kernels(sm)  # before warm_modules imports numba and the activation kernel
log = logger(sm.log[0])
log(f"compiling the kernels of {sm.wildcards.script}.py into {sm.params.cache_dir}")
warm_modules(sm.params.modules, log)
log("done")
