"""Monte-Carlo error of the DMFT (``featlearn.theory.dmft.solve``) measured over independent path replicas.

The DMFT closes its kernels with N Monte-Carlo paths, so one solution is one random draw.  For GeLU on
the unbounded link y = g² − 1 ("he2", η = 1, a = 1, b = 0, r₀ = 1, no noise) at δ = 8, T = 50, this
script solves R replicas (identities ("dmft-replicas", N, r), r = 0..R−1) for each N and prints, at
t ∈ {10, 30, 50}, for ‖θ^t‖², the train loss and H₁₁ = E[g² w^t]:

* the replica mean ± standard error (s.e. = sd/√R), the replica sd and sd·√N (constant in N when the
  error falls like 1/√N), the smallest and the largest replica;

then diagnoses the largest ‖θ‖² at the last step (the "spike"):

* ‖θ^t‖² = r₀² R_θ(t, 0)² + (1/N) Σ_k c_k with c_k = (η²/δ) (Σ_{s<t} R_θ(t, s+1) r_k^s)² (eq. (D4)
  with the empirical C_r): the top-5 c_k with their g², y, w^t and the share of the path average held
  by the top 0.1 % of paths by g²;
* the same replica with those paths dropped from the final average (kernels kept), and re-solved
  self-consistently with their g clipped to the 99.9 % quantile of |g| (other randomness unchanged);
* across replicas: the correlation of ‖θ^T‖² with max g² and with the top-0.1 % share, and the
  replica sd of ‖θ^T‖² without the top-0.1 % paths;

and, as a contrast, the same replica statistics for the bounded link "bump" at δ = 9.

Usage: python benchmarks/dmft_replicas.py [--paths 2500,10000,40000] [--replicas 64,48,32]
       [--bump-paths 10000] [--bump-replicas 16] [--threads 2]
"""

import argparse
import contextlib
import time

import numba
import numpy as np

from featlearn.theory import dmft

ACT, LR, A, B, R0 = "gelu", 1.0, 1.0, 0.0, 1.0
LINK, DELTA = "he2", 8.0  # the unbounded link under test
BUMP_DELTA = 9.0  # the bounded contrast
STEPS = 50
TIMES = (10, 30, 50)
TAIL = 1e-3  # the top 0.1 % of paths by g²
BAND_EDGES = (1e-3, 1e-2, 1e-1)  # g² bands by rank: top 0.1 %, 0.1–1 %, 1–10 %, the rest
BANDS = ("g² top.1%", "top.1–1%", "top1–10%", "rest 90%")
FIELDS = (("‖θ‖²", "norm2"), ("loss", "train_loss"), ("H11", "h11"))


@contextlib.contextmanager
def recorded_residuals():
    """Record r^t of every path as ``solve`` computes it (``dmft.loss_derivatives`` wrapped)."""
    steps, original = [], dmft.loss_derivatives

    def recorder(*args):
        out = original(*args)
        steps.append(out[1].copy())
        return out

    dmft.loss_derivatives = recorder
    try:
        yield steps
    finally:
        dmft.loss_derivatives = original


@contextlib.contextmanager
def clipped_tail(fraction):
    """Clip the paths' g to the (1 − fraction) quantile of |g|; rng use, hence u₀ and Ξ, unchanged."""
    original = dmft.path_law

    def clipped(rng, paths, link, noise=0.0):
        g, _ = original(rng, paths, link, noise)
        g = np.clip(g, *np.quantile(g, [fraction / 2, 1 - fraction / 2]))
        return g, dmft.get_link(link).h(g[:, None])

    dmft.path_law = clipped
    try:
        yield
    finally:
        dmft.path_law = original


def solve(link, delta, paths, replica, clip=None):
    """One replica: the DMFTResult and the residuals r, shape (T + 1, N)."""
    with contextlib.ExitStack() as stack:
        residuals = stack.enter_context(recorded_residuals())
        if clip:
            stack.enter_context(clipped_tail(clip))
        res = dmft.solve(
            ACT, link, delta, LR, STEPS, paths, ("dmft-replicas", paths, replica), a=A, b=B, r0=R0
        )
    return res, np.array(residuals)


def contributions(res, residuals, t):
    """c_k of every path at step t (module docstring) and the initial-condition term r₀² R_θ(t, 0)²."""
    drive = res.r_theta[t, 1 : t + 1] @ residuals[:t]
    c = LR**2 / res.delta * drive**2
    init = R0**2 * res.r_theta[t, 0] ** 2
    assert np.isclose(init + c.mean(), res.norm2[t], rtol=1e-8), "decomposition does not add up"
    return c, init


def stiffness(res, t):
    """Per-path terms of the memory sum Σ_{s≤t} R_r(t, s) = E[w^t K^t] (eq. (D7)), K^t = Σ_s J^t_s.

    Summing (D6) over s gives K^t = 1 − (η/δ) Σ_{u<t} R_θ(t, u+1) w^u K^u, an O(N T²) recursion.  In
    (D3) this sum is the restoring rate of R_θ: when it is small R_θ keeps a long memory and ‖θ‖² grows.
    """
    k = np.zeros((t + 1, res.w.shape[1]))
    for u in range(t + 1):
        k[u] = 1.0 - (LR / res.delta) * (res.r_theta[u, 1 : u + 1] @ (res.w[:u] * k[:u]))
    terms = res.w[t] * k[t]
    assert np.isclose(terms.mean(), res.r_r[t, : t + 1].sum(), rtol=1e-8, atol=1e-10), "K does not add up"
    return terms


def by_band(values, res):
    """Σ_k values_k / N over the g² bands BANDS (paths ranked by g²)."""
    paths = len(values)
    order = np.argsort(-res.g2)
    edges = [0, *(int(round(f * paths)) for f in BAND_EDGES), paths]
    return [values[order[lo:hi]].sum() / paths for lo, hi in zip(edges[:-1], edges[1:], strict=True)]


def tail_mask(res):
    return res.g2 >= np.quantile(res.g2, 1 - TAIL)


def run_set(link, delta, paths, replicas, keep=False):
    """Per-replica summaries (and, with ``keep``, the solutions) of one (link, δ, N)."""
    rows, kept = [], []
    start = time.perf_counter()
    for r in range(replicas):
        res, residuals = solve(link, delta, paths, r)
        c, init = contributions(res, residuals, STEPS)
        tail = tail_mask(res)
        rows.append(
            {
                **{key: getattr(res, key)[list(TIMES)] for _, key in FIELDS},
                "g2max": res.g2.max(),
                "tail_share": c[tail].sum() / c.sum(),
                "norm2_trim": init + c[~tail].sum() / paths,
                "stiffness": res.r_r[STEPS, : STEPS + 1].sum(),
            }
        )
        if keep:
            kept.append((res, residuals))
    return rows, kept, time.perf_counter() - start


def summary_lines(label, paths, rows, seconds):
    lines = []
    for i, t in enumerate(TIMES):
        cells = []
        for name, key in FIELDS:
            v = np.array([row[key][i] for row in rows])
            sd = v.std(ddof=1)
            cells.append(
                f"{name} {v.mean():7.4f}±{sd / np.sqrt(len(v)):.4f} sd {sd:.4f}"
                f" sd√N {sd * np.sqrt(paths):6.2f} [{v.min():.3f},{v.max():.3f}]"
            )
        lines.append(f"{label:>19} R={len(rows):<3} t={t:<3}| " + " | ".join(cells))
    lines.append(f"{'':>19} ({seconds:.1f} s, {seconds / len(rows):.2f} s/replica)")
    return lines


def diagnose(paths, rows, kept):
    """The spike: the replica with the largest ‖θ^T‖² at this N."""
    norms = np.array([row["norm2"][-1] for row in rows])
    r = int(np.argmax(norms))
    res, residuals = kept[r]
    c, init = contributions(res, residuals, STEPS)
    tail = tail_mask(res)
    median = int(np.argsort(norms)[len(norms) // 2])
    print(
        f"\nN={paths}: largest ‖θ^{STEPS}‖² = {norms[r]:.4f} (replica {r});"
        f" replicas' median {np.median(norms):.4f}, mean {norms.mean():.4f}"
    )
    print(f"  replicas, sorted: {' '.join(f'{v:.3f}' for v in np.sort(norms))}")
    print(f"  {'by g² band of the paths:':<36}" + " ".join(f"{b:>10}" for b in ("R_θ(T,0)²", *BANDS)))
    for label, idx in (("spike", r), ("median", median)):
        sol, res_paths = kept[idx]
        cb, ib = contributions(sol, res_paths, STEPS)
        stiff = stiffness(sol, STEPS)
        print(
            f"  {f'‖θ^T‖², {label} replica {idx}':<36}"
            + " ".join(f"{v:10.4f}" for v in (ib, *by_band(cb, sol)))
            + f"  total {sol.norm2[STEPS]:.4f}"
        )
        print(
            f"  {f'Σ_s R_r(T,s), {label} replica {idx}':<36}{'':>10} "
            + " ".join(f"{v:10.4f}" for v in by_band(stiff, sol))
            + f"  total {stiff.mean():.4f}"
        )
    print("  top-5 paths by c_k (c_k/N is the path's share of ‖θ‖²):")
    print(f"    {'c_k/N':>8} {'g²':>7} {'y':>7} {'w^T':>8} {'r^T':>8} {'g² rank':>8}")
    rank = np.empty(paths, int)
    rank[np.argsort(-res.g2)] = np.arange(1, paths + 1)
    for k in np.argsort(-c)[:5]:
        print(
            f"    {c[k] / paths:8.4f} {res.g2[k]:7.2f} {res.y[k]:7.2f} {res.w[STEPS, k]:8.3f}"
            f" {residuals[STEPS, k]:8.3f} {rank[k]:8d}"
        )
    print(
        f"  top {TAIL:.1%} by g² ({tail.sum()} paths, g² ≥ {res.g2[tail].min():.2f}): share of the path"
        f" average {c[tail].sum() / c.sum():.1%}; top-5 c_k share {np.sort(c)[-5:].sum() / c.sum():.1%}"
    )
    print(f"  without them (kernels kept): ‖θ^T‖² = {init + c[~tail].sum() / paths:.4f}")
    for label, idx in (("spike", r), ("median", median)):
        clipped, _ = solve(LINK, DELTA, paths, idx, clip=TAIL)
        print(
            f"  re-solved with |g| clipped at its 99.9 % quantile, {label} replica {idx}:"
            f" ‖θ^T‖² {norms[idx]:.4f} → {clipped.norm2[-1]:.4f},"
            f" Σ_s R_r(T,s) {rows[idx]['stiffness']:.4f} → {clipped.r_r[STEPS].sum():.4f}"
        )
    g2max = np.array([row["g2max"] for row in rows])
    share = np.array([row["tail_share"] for row in rows])
    trim = np.array([row["norm2_trim"] for row in rows])
    stiff = np.array([row["stiffness"] for row in rows])
    print(
        f"  across replicas: corr(‖θ^T‖², ·) with max g² {np.corrcoef(norms, g2max)[0, 1]:+.2f},"
        f" top-0.1 % share {np.corrcoef(norms, share)[0, 1]:+.2f},"
        f" Σ_s R_r(T,s) {np.corrcoef(norms, stiff)[0, 1]:+.2f}"
    )
    print(
        f"  sd ‖θ^T‖² {norms.std(ddof=1):.4f} → {trim.std(ddof=1):.4f} without the top 0.1 % (kernels kept);"
        f" Σ_s R_r(T,s) over replicas: {stiff.mean():.3f} ± sd {stiff.std(ddof=1):.3f}, min {stiff.min():.3f}"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--paths", default="2500,10000,40000", help="N list (GeLU/he2, δ = 8)")
    parser.add_argument("--replicas", default="64,48,32", help="R list, one per N")
    parser.add_argument("--bump-paths", type=int, default=10000)
    parser.add_argument("--bump-replicas", type=int, default=16)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    paths = [int(v) for v in args.paths.split(",")]
    replicas = [int(v) for v in args.replicas.split(",")]
    if len(paths) != len(replicas):
        parser.error("--paths and --replicas need the same length")
    numba.set_num_threads(args.threads)
    total = time.perf_counter()
    dmft.warm()
    grid = f"{ACT}, η={LR}, a={A}, b={B}, r₀={R0}, T={STEPS}"
    print(f"DMFT replicas ({grid}); mean±s.e. over replicas, sd, sd·√N, [min, max]")
    sets = []
    for n, reps in zip(paths, replicas, strict=True):
        rows, kept, seconds = run_set(LINK, DELTA, n, reps, keep=True)
        sets.append((n, rows, kept))
        print("\n".join(summary_lines(f"{LINK} δ={DELTA:g} N={n}", n, rows, seconds)), flush=True)
    rows, _, seconds = run_set("bump", BUMP_DELTA, args.bump_paths, args.bump_replicas)
    print(
        "\n".join(summary_lines(f"bump δ={BUMP_DELTA:g} N={args.bump_paths}", args.bump_paths, rows, seconds))
    )
    print(
        f"\nSpike diagnosis ({LINK}, δ={DELTA:g}, t={STEPS}); g is drawn by dmft.stratified_normal (path_law)"
    )
    for n, rows, kept in sets:
        diagnose(n, rows, kept)
        kept.clear()
    print("\nCost to reach s.e.(‖θ^T‖²) ≤ 0.02: N·R ≥ (sd·√N / 0.02)²")
    for n, rows, _ in sets:
        sd = np.array([row["norm2"][-1] for row in rows]).std(ddof=1)
        need = (sd * np.sqrt(n) / 0.02) ** 2
        print(f"  N={n:<6} sd·√N {sd * np.sqrt(n):6.2f} → N·R ≥ {need:.3g} (R ≥ {int(np.ceil(need / n))})")
    print(f"\ntotal {time.perf_counter() - total:.1f} s")


if __name__ == "__main__":
    main()
