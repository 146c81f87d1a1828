"""Result files, provenance, job start-up (log, numba cache, threads) and kernel warm-up."""
