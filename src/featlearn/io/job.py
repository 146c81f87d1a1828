"""A job's start: its log (timestamped progress lines, every rule writes one), and for compute
jobs the warm numba kernel cache and the thread count."""

import os
import sys
import time


def logger(path=None):
    """A print-like function writing timestamped lines to ``path`` (or stderr), flushed at once."""
    stream = open(path, "a") if path else sys.stderr

    def log(message):
        stream.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} {message}\n")
        stream.flush()

    return log


def start_job(smk):
    """Point numba at the warm kernel cache, set its threads from the rule, return the job's logger.

    ``NUMBA_CACHE_DIR`` is read when numba is first imported, so call this before importing any
    featlearn module that compiles kernels (``gd.kernel``, ``model.activations``, ...).
    """
    os.environ["NUMBA_CACHE_DIR"] = smk.params.cache_dir
    import numba

    numba.set_num_threads(smk.threads)
    return logger(smk.log[0])
