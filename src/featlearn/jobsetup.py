"""Start of a simulation job run by Snakemake: numba cache, thread count and log."""

import os

from .joblog import logger


def start_job(smk):
    """Point numba at the warm kernel cache, set its threads from the rule, return the job's logger.

    ``NUMBA_CACHE_DIR`` is read when numba is first imported, so call this before importing any
    featlearn module that compiles kernels (``gd_kernel``, ``activations``, ...).
    """
    os.environ["NUMBA_CACHE_DIR"] = smk.params.cache_dir
    import numba

    numba.set_num_threads(smk.threads)
    return logger(smk.log[0])
