"""The spectral-threshold scan's cells at large d on a GPU (CuPy), checked against the CPU cells,
with the GD's bytes moved against the device's bandwidth.

The workflow's cells (rule ``spectral_threshold_cell``) run restricted GD on the CPU, one seed after
another; at d = 2400 a Quad cell of 20 seeds takes hours on one core.  This script runs the cells a
config asks for at the given d with ``featlearn.hessian.batched_plateau`` on CuPy (every seed of a
cell in lockstep; the data are the trials' own, generated on the host by worker processes; the
spectra and the semi-empirical outlier are computed by the workers from the Hessian formed on the
GPU) and writes each cell where the rule writes it (``<root>/results/spectral_threshold/…``, the
rule's settings and provenance, plus the engine), so that the tables of an overlay read them.
``--seeds`` runs the first seeds of each cell only (at d = 4800 all 20 do not fit a device session);
such a cell's record says how many, so a build sees it as out of date and the tables must read it by
hand.

First it checks the engine: the cells at ``--check-d`` (one δ per activation, ``--check-seeds``
seeds) against ``hessian.plateau.threshold_scan_run`` on the CPU, key by key (max |difference|,
stopping steps that differ).  Then the cells, nearest the middle of each grid first, alternating
activations, while ``--budget-s`` lasts.  It prints per cell the GD's time, the bytes it moved
(each step of each active seed reads X twice: z = Xθ, then Xᵀ(…)) and their ratio to the device's
nominal bandwidth (``--bandwidth-gbs``).

Usage (the config as Snakemake merges it; a single pre-merged file needs no Snakemake):
    python benchmarks/threshold_scan_gpu.py --configfile config.yaml \\
        workflow/configs/spectral_threshold.yaml --d 2400 --root . [--workers 14] [--budget-s 480]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from functools import partial
from pathlib import Path

SINGLE_THREAD = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
for _name in SINGLE_THREAD:  # one core per worker process; the GD runs on the GPU
    os.environ.setdefault(_name, "1")

import multiprocessing as mp  # noqa: E402

import numpy as np  # noqa: E402
import yaml  # noqa: E402

from featlearn.gd.trials import sample_count  # noqa: E402
from featlearn.hessian import batched_plateau as bp  # noqa: E402
from featlearn.hessian import plateau  # noqa: E402
from featlearn.io.provenance import provenance  # noqa: E402
from featlearn.io.results import save_npz, stack_runs  # noqa: E402
from featlearn.io.settings import JobSettings  # noqa: E402
from featlearn.pipeline import jobs  # noqa: E402

RULE = "spectral_threshold_cell"


def load_config(paths):
    """The config Snakemake builds from ``paths`` (``featlearn.plan``); one file is read as it is."""
    if len(paths) == 1:
        return yaml.safe_load(Path(paths[0]).read_text())
    from featlearn.plan import load_config as merged

    return merged(paths)


def cell_settings(config, cell):
    """The settings the rule's job at ``cell`` reads (its params, as the cell script builds them)."""
    params, _ = jobs.KIND[RULE].params(config, cell)
    return JobSettings.from_dict(params["settings"])


def ordered_cells(config, ds):
    """The rule's cells at the d in ``ds``: per activation nearest the middle of its grid first,
    activations alternating."""
    per_act = {}
    for cell in jobs.KIND[RULE].cells(config):
        if int(cell["d"]) in ds:
            per_act.setdefault(cell["activation"], []).append(cell)
    for cells in per_act.values():
        middle = np.median([float(c["delta"]) for c in cells])
        cells.sort(key=lambda c: (abs(float(c["delta"]) - middle), int(c["d"])))
    longest = max(map(len, per_act.values()), default=0)
    return [cells[i] for i in range(longest) for cells in per_act.values() if i < len(cells)]


def spilled_setup(settings, delta, seed_index, spill):
    """Worker: a trial's :class:`batched_plateau.Seed` with X saved to ``spill`` (its path in x)."""
    seed = bp.Seed.setup(settings, delta, seed_index)
    path = Path(spill) / f"{settings.activation}_{settings.d}_{delta}_{seed_index}.npy"
    np.save(path, seed.x)
    return replace(seed, x=str(path))


def loaded(seed):
    """A spilled seed with X read back (and its file removed)."""
    x = np.load(seed.x)
    os.remove(seed.x)
    return replace(seed, x=x)


def warm(config):
    """Compile the numba code the workers run (into numba's cache, which the spawned workers read):
    a tiny cell through both engines, in this process."""
    cell = jobs.KIND[RULE].cells(config)[0]
    tiny = replace(cell_settings(config, cell), d=40, seeds=1, steps=30)
    bp.threshold_scan_cell(tiny, float(cell["delta"]), log=silent)
    plateau.threshold_scan_run(tiny, float(cell["delta"]), 0, silent)


def spill_folder(choice, need_bytes):
    """Where workers hand X over: ``choice``, or (``auto``) /dev/shm if it has ``need_bytes`` free."""
    if choice != "auto":
        return Path(choice)
    shm = Path("/dev/shm")
    return shm if shm.is_dir() and shutil.disk_usage(shm).free > need_bytes else Path(tempfile.gettempdir())


def write_cell(root, cell, settings, delta, runs, engine):
    """The cell's arrays and provenance where the rule writes them (its record names the engine)."""
    out = Path(root) / jobs.KIND[RULE].output(**cell)
    record = {**provenance(delta=delta, **settings.asdict()), "engine": engine}
    save_npz(out, stack_runs(runs, d=settings.d, delta=delta), record)
    print(f"wrote {out}", flush=True)


def silent(*_):
    """A log that drops its lines (picklable, for the workers)."""


def check(pool, config, d, n_seeds, xp, erf):
    """The engine against the CPU cells at d: per activation its grid's middle δ, ``n_seeds`` seeds;
    {activation: {key: max |difference|}, plus the seeds whose stopping step differs}."""
    report = {}
    for activation, grid in config["spectral_threshold"]["delta"].items():
        delta = sorted(grid)[len(grid) // 2]
        cell = {"activation": activation, "d": str(d), "delta": jobs.fmt(delta)}
        settings = replace(cell_settings(config, cell), d=d, seeds=n_seeds)
        cpu = pool.starmap(plateau.threshold_scan_run, [(settings, delta, i, silent) for i in range(n_seeds)])
        gpu = bp.run_seeds(
            [bp.Seed.setup(settings, delta, i) for i in range(n_seeds)], settings, xp, erf, silent
        )
        a, b = stack_runs(cpu), stack_runs(gpu)
        diff = {
            key: float(np.nanmax(np.abs(np.asarray(a[key], float) - np.asarray(b[key], float)))) for key in a
        }
        diff["seeds_with_other_stop"] = int(np.sum(a["final_step"] != b["final_step"]))
        diff["delta"] = delta
        report[activation] = diff
        print(f"check {activation} d={d} delta={delta}: {json.dumps(diff)}", flush=True)
    return report


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", nargs="+", required=True)
    parser.add_argument("--d", nargs="+", type=int, required=True, help="the d whose cells to run")
    parser.add_argument("--root", default=".", help="the workflow root the results/ tree goes under")
    parser.add_argument("--workers", type=int, default=max(1, (os.cpu_count() or 2) - 2))
    parser.add_argument("--budget-s", type=float, default=480.0, help="start no cell after this")
    parser.add_argument("--check-d", type=int, default=600)
    parser.add_argument("--check-seeds", type=int, default=4)
    parser.add_argument("--spill", default="auto", help="where workers hand X over (auto: /dev/shm)")
    parser.add_argument("--bandwidth-gbs", type=float, default=4800.0, help="nominal (H200: 4.8 TB/s)")
    parser.add_argument("--numpy", action="store_true", help="NumPy instead of CuPy (a dry run)")
    parser.add_argument(
        "--seeds", type=int, help="run the first SEEDS seeds of each cell (its record says so); default all"
    )
    args = parser.parse_args()
    clock = time.perf_counter()
    config = load_config(args.configfile)
    warm(config)
    pool = mp.get_context("spawn").Pool(args.workers)
    if args.numpy:
        from scipy.special import erf

        xp, engine = np, f"featlearn.hessian.batched_plateau on numpy {np.__version__}"
    else:
        import cupy as xp
        from cupyx.scipy.special import erf

        name = xp.cuda.runtime.getDeviceProperties(0)["name"].decode()
        engine = f"featlearn.hessian.batched_plateau on cupy {xp.__version__}, {name}"
    print(f"{engine}; {args.workers} workers; warm-up {time.perf_counter() - clock:.1f}s", flush=True)
    summary = {"engine": engine, "check": check(pool, config, args.check_d, args.check_seeds, xp, erf)}
    cells = ordered_cells(config, set(args.d))
    settings = [cell_settings(config, cell) for cell in cells]
    if args.seeds:  # the same trials, fewer of them: seed k's data do not depend on the count
        settings = [replace(s, seeds=min(args.seeds, s.seeds)) for s in settings]
    sizes = [  # bytes of X per cell
        8 * s.d * sample_count(float(c["delta"]), s.d) * s.seeds for c, s in zip(cells, settings, strict=True)
    ]
    spill = spill_folder(args.spill, 3 * max(sizes, default=0)) / f"featlearn_spill_{os.getpid()}"
    spill.mkdir(parents=True)

    def prefetch(i):
        s, delta = settings[i], float(cells[i]["delta"])
        return pool.starmap_async(spilled_setup, [(s, delta, k, str(spill)) for k in range(s.seeds)])

    def write_ready(waiting, wait):
        for item in list(waiting):
            cell, s, records = item
            if wait or records.ready():
                write_cell(args.root, cell, s, float(cell["delta"]), records.get(), engine)
                waiting.remove(item)

    pending, waiting, summary["cells"] = prefetch(0) if cells else None, [], []
    for i, cell in enumerate(cells):
        if time.perf_counter() - clock > args.budget_s:
            print(f"budget spent: {len(cells) - i} cells not started", flush=True)
            break
        seeds = [loaded(seed) for seed in pending.get()]
        pending = prefetch(i + 1) if i + 1 < len(cells) else None
        timing, start = {}, time.perf_counter()
        finish = partial(pool.starmap_async, bp.host_record)
        waiting.append((cell, settings[i], bp.run_seeds(seeds, settings[i], xp, erf, print, finish, timing)))
        moved = 2 * timing["evaluations"] * seeds[0].x.nbytes  # X read twice per gradient evaluation
        timing.update(gd_and_hessians_s=time.perf_counter() - start, bytes=moved)
        timing["bandwidth_share"] = moved / timing["gd_s"] / (args.bandwidth_gbs * 1e9)
        summary["cells"].append({**cell, **timing})
        print(f"cell {json.dumps(cell)}: {json.dumps(timing)}", flush=True)
        del seeds
        write_ready(waiting, wait=False)
    write_ready(waiting, wait=True)
    shutil.rmtree(spill, ignore_errors=True)
    summary["wall_s"] = time.perf_counter() - clock
    print(json.dumps(summary), flush=True)
    pool.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
