"""A job's start: its log (timestamped progress lines, every rule writes one), and for compute
jobs the warm numba kernel cache, the model kernel and the thread count.

A compute script calls :func:`start_job` first and imports its featlearn modules after it, inside
its ``main(sm)``:

    from featlearn.io.job import start_job


    def main(sm):
        log = start_job(sm)
        from featlearn.gd.trials import run_cell
        ...


    main(snakemake)
"""

import os
import sys
import time

from featlearn.io.usage import record_at_exit
from featlearn.model.kernel_choice import use_model_kernel


def logger(path=None):
    """A print-like function writing timestamped lines to ``path`` (or stderr), flushed at once.  In a
    job whose rule declares a ``usage`` log, the job's benchmark record is written there at exit
    (``featlearn.io.usage``)."""
    record_at_exit()
    stream = open(path, "a") if path else sys.stderr

    def log(message):
        stream.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
        stream.flush()

    return log


def use_kernel_cache(cache_dir):
    """Make numba cache its compiled kernels in ``cache_dir`` (``NUMBA_CACHE_DIR``).

    numba reads the variable into its config when it is imported, and a kernel
    (``@njit(cache=True)``) fixes its cache directory from that config when it is decorated, that
    is when its module is imported.  So this must run before numba is imported at all; it raises
    otherwise, since the kernels would silently be cached, and looked up, elsewhere.
    """
    if "numba" in sys.modules:
        raise RuntimeError(f"numba was imported before its kernel cache was set to {cache_dir}")
    os.environ["NUMBA_CACHE_DIR"] = cache_dir


def use_job_kernels(smk):
    """The job's numba cache (``params.cache_dir``, :func:`use_kernel_cache`) and model kernel
    (``input.kernel``, present for a config activation or loss only; :func:`use_model_kernel`)."""
    use_kernel_cache(smk.params.cache_dir)
    use_model_kernel(smk.input.get("kernel"))


def start_job(smk):
    """Point numba at the job's warm kernel cache and featlearn at its model kernel
    (:func:`use_job_kernels`), set its threads from the rule, return the job's logger.  Call it
    before importing any featlearn module that uses numba (a kernel module, or ``io.provenance``)."""
    use_job_kernels(smk)
    import numba

    numba.set_num_threads(smk.threads)
    return logger(smk.log[0])
