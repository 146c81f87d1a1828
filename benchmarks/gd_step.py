"""GD step benchmark: fused numba engine vs a NumPy two-gemv baseline vs the machine's read bandwidth.

One GD step must read X (n×d) at least once, so its floor is X.nbytes / (read bandwidth).  For
each (n, d) and dtype this prints the per-step time of
  * the engine  (featlearn.gd.kernel.risk_and_gradient: one fused pass over X),
  * the baseline (z = Xθ, then g = Xᵀr: two BLAS gemv calls, X read twice),
  * a plain streaming read of the same X (numba parallel sum: the bandwidth ceiling),
and the "X bandwidth" X.nbytes/time of each.  Ratios come last: engine speed-up over the baseline
and the engine's fraction of the measured read bandwidth (targets at (24000, 4000) on 2 cores:
≥ 1.5× and ≥ 80 %).  Each timing is the median of several repetitions, interleaved so that
bandwidth drift hits all three alike.

Usage: python benchmarks/gd_step.py [--threads T] [--reps R] [--sizes 6000x1000,24000x4000]
"""

import argparse
import time

import numba
import numpy as np
from numba import njit, prange

from featlearn.gd import kernel as gd_kernel
from featlearn.model.activations import activation, activation_code

CODE = activation_code("gelu")


@njit(parallel=True, cache=True, fastmath=gd_kernel.FASTMATH)
def _stream_read(x, zero):
    n = x.shape[0]
    nb = gd_kernel.N_BLOCKS
    out = np.zeros(nb)
    for blk in prange(nb):
        s = zero
        for i in range(blk * n // nb, (blk + 1) * n // nb):
            row = x[i]
            for k in range(row.size):
                s += row[k]
        out[blk] = s
    return out.sum()


def stream_read(x):
    """Σ_ij x_ij over the engine's row blocks, vectorised in the dtype of X: a pure streaming read."""
    return _stream_read(x, x.dtype.type(0))


@njit(cache=True)
def _residual(z, y, code):
    r = np.empty(z.size)
    for i in range(z.size):
        s, ds, _ = activation(code, z[i])
        r[i] = (s - y[i]) * ds
    return r


def numpy_step(x, y, theta):
    """Baseline gradient: two gemv (X read twice) plus an elementwise residual."""
    z = x @ theta[0].astype(x.dtype)
    r = _residual(z.astype(np.float64), y, CODE)
    return (r.astype(x.dtype) @ x) / x.shape[0]


def median_time(fn, reps):
    time.sleep(0.2)  # OpenBLAS threads spin after a call: let them go idle before timing another library
    fn()  # one untimed call
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def bench(n, d, dtype, reps):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d)).astype(dtype)
    y = rng.standard_normal(n) ** 2 - 1
    theta = rng.standard_normal((1, d)) / np.sqrt(d)
    a, b = np.ones(1), np.zeros(1)
    buffers = gd_kernel.scratch(1, d, x.dtype)
    runs = {
        "engine": lambda: gd_kernel.risk_and_gradient(x, y, theta, a, b, CODE, buffers),
        "numpy": lambda: numpy_step(x, y, theta),
        "read": lambda: stream_read(x),
    }
    for fn in runs.values():
        fn()  # compile / warm caches
    rounds = {k: [] for k in runs}
    for _ in range(3):  # interleave so bandwidth drift affects all alike
        for k, fn in runs.items():
            rounds[k].append(median_time(fn, reps))
    t = {k: float(np.median(v)) for k, v in rounds.items()}
    gbs = {k: x.nbytes / v / 1e9 for k, v in t.items()}
    return t, gbs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--sizes", default="6000x1000,24000x4000")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    sizes = [tuple(int(v) for v in s.split("x")) for s in args.sizes.split(",")]
    print(f"threads={args.threads}  (X bandwidth = X.nbytes / time per step)")
    print(
        f"{'n':>6} {'d':>5} {'dtype':>7} | {'engine ms':>9} {'numpy ms':>9} {'read ms':>8} |"
        f" {'engine GB/s':>11} {'numpy GB/s':>10} {'read GB/s':>9}"
    )
    ratios = []
    for n, d in sizes:
        for dtype in (np.float64, np.float32):
            t, gbs = bench(n, d, dtype, args.reps)
            name = np.dtype(dtype).name
            print(
                f"{n:>6} {d:>5} {name:>7} |"
                f" {t['engine'] * 1e3:9.2f} {t['numpy'] * 1e3:9.2f} {t['read'] * 1e3:8.2f} |"
                f" {gbs['engine']:11.1f} {gbs['numpy']:10.1f} {gbs['read']:9.1f}"
            )
            ratios.append((n, d, name, t["numpy"] / t["engine"], t["read"] / t["engine"]))
    print("\nratios (targets at 24000x4000: speed-up >= 1.5, fraction of read bandwidth >= 0.80)")
    for n, d, name, speedup, fraction in ratios:
        print(
            f"{n:>6} {d:>5} {name:>7}: engine/numpy speed-up {speedup:5.2f}x,"
            f" engine fraction of read bandwidth {fraction:5.2f}"
        )


if __name__ == "__main__":
    main()
