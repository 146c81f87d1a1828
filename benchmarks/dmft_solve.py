"""DMFT solver benchmark: wall time of ``featlearn.theory.dmft.solve`` against the 2-minute target.

The cost is dominated by the response recursion (J), N·T³/6 multiply-adds in a numba kernel, and
its memory N·(T+1)(T+2)/2 doubles; the rest is O(N T²) BLAS.  Prints, per (activation, T, N):
the solve time, the flop rate of the (J) recursion, the outlier-track time (the outlier equations
at every t) and the ratio of the total to the target (T = 100, N = 10⁴ in ≤ 120 s on 2 cores).

Usage: python benchmarks/dmft_solve.py [--threads T] [--cases gelu:100:10000,quad:100:10000]
"""

import argparse
import time

import numba
import numpy as np

from featlearn.theory import delta_nn as theory
from featlearn.theory import dmft

TARGET_S = 120.0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--cases", default="gelu:100:10000,quad:100:10000")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    dmft.solve("gelu", "he2", 6.0, 1.0, 3, 100, ("warm",))  # compile outside the timings
    lr = {"gelu": 1.0, "quad": 0.05}
    print(f"{'case':>22} {'solve s':>8} {'J GFLOP/s':>10} {'track s':>8} {'total/target':>13}")
    for case in args.cases.split(","):
        act, horizon, paths = case.split(":")
        horizon, paths = int(horizon), int(paths)
        start = time.perf_counter()
        res = dmft.solve(act, "he2", 8.0, lr[act], horizon, paths, ("bench", act))
        solve_s = time.perf_counter() - start
        start = time.perf_counter()
        theory.outlier_track(res, np.arange(horizon + 1))
        track_s = time.perf_counter() - start
        flops = 2 * paths * horizon**3 / 6
        total = solve_s + track_s
        print(
            f"{case:>22} {solve_s:8.2f} {flops / solve_s / 1e9:10.2f} {track_s:8.2f} {total / TARGET_S:13.3f}"
        )


if __name__ == "__main__":
    main()
