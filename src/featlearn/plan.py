"""What a config costs, before anything runs: jobs, core-hours and peak memory per rule.

    python -m featlearn.plan --configfile workflow/configs/paper.yaml [--cores 2]

Every compute job is listed with the memory and runtime its rule requests
(``featlearn.pipeline.resources``, the same functions the rules call).  The runtime is an upper
bound: every trial is charged its whole step budget, while a trial that escapes stops at
``freeze_rho`` and one that fails stops at its certified minimum (``early_stop``), so real runs
are shorter.  Small jobs (tables, figures, kernel warm-up) are counted at a fixed cost.
"""

import argparse
import math
from collections import defaultdict

import yaml

from featlearn.pipeline import resources, settings

SMALL_JOB_SECONDS = 5.0  # a table, a figure or a warm-up: interpreter start plus a little work


def compute_jobs(config):
    """[(rule, threads, mem_mb, upper-bound seconds)] of every compute job of ``config``."""
    threads = config["threads"]
    jobs = []
    for name, spec in config["sweeps"].items():
        s = settings.sweep_settings(config, name)
        for d in spec["d"]:
            for delta in spec["delta"]:
                mb = resources.gd_cell_mem_mb(d, delta, s.n_test, s.dtype)
                seconds = resources.gd_cell_seconds(d, delta, s.dtype, s.steps, s.trials)
                jobs.append(("sweep_cell", threads, mb, seconds))
    for name in config["grokking"]:
        s = settings.long_run_settings(config, name)
        mb = resources.gd_cell_mem_mb(s.d, s.delta, s.n_test, s.dtype)
        seconds = resources.gd_cell_seconds(s.d, s.delta, s.dtype, s.steps, 1)
        jobs.append(("grokking_run", threads, mb, seconds))
    for activation, deltas in config["hessian"]["delta"].items():
        s = settings.plateau_settings(config, activation)
        for delta in deltas:
            seconds = resources.restricted_seconds(s.d, delta, s.steps, s.seeds, s.checkpoints + 1, s.m)
            jobs.append(("hessian_cell", threads, resources.restricted_mem_mb(s.d, delta, s.m), seconds))
    theory = config["theory"]
    for model, deltas in theory["simulation"]["delta"].items():
        s = settings.referee_settings(config, model)
        for delta in deltas:
            seconds = resources.restricted_seconds(s.d, delta, s.steps, s.seeds, len(s.spectrum_steps))
            jobs.append(("theory_sim_cell", threads, resources.restricted_mem_mb(s.d, delta), seconds))
    for spec in theory["models"].values():
        for n in {spec.get("n_paths", theory["n_paths"]), *theory["n_paths_scan"]}:
            seconds = resources.dmft_seconds(n, theory["horizon"], len(spec["delta"]))
            jobs.append(("dmft_model", threads, resources.dmft_mem_mb(n, theory["horizon"]), seconds))
        jobs.append(("fixed_point_model", threads, resources.BASE_MB, 10.0 * len(spec["delta"])))
    escape = config["escape"]
    for kind, cases in (("linear", escape["cases"]), ("signal", escape["signal"]["cases"])):
        runs, solves = resources.escape_work(kind, escape["signal"]["m0"])
        for model, deltas in cases.items():
            s = settings.escape_settings(config, model)
            for delta in deltas:
                mb = resources.escape_mem_mb(s.d, delta, s.n_paths, s.steps)
                seconds = resources.escape_seconds(s.d, delta, s.steps, s.trials, runs, solves, s.n_paths)
                jobs.append((f"escape_{kind}_cell", threads, mb, seconds))
    spectral = config["spectral"]
    for d in spectral["d"]:
        mb = resources.spectral_mem_mb(d, max(spectral["delta"]))
        seconds = resources.spectral_seconds(d, spectral["delta"], spectral["trials"])
        jobs.append(("spectral_overlap", 1, mb, seconds))
    return jobs


def small_job_count(config):
    """Tables, figures and warm-ups: one per sweep (aggregation, figure), per figure, per table."""
    sweeps = len(config["sweeps"])
    return 2 * sweeps + 20


def table(config, cores):
    """Rows {rule, jobs, core_hours, peak_mem_mb} and the totals (wall hours on ``cores``)."""
    by_rule = defaultdict(lambda: [0, 0.0, 0])
    for rule, threads, mb, seconds in compute_jobs(config):
        row = by_rule[rule]
        row[0] += 1
        row[1] += threads * seconds / 3600
        row[2] = max(row[2], mb)
    small = small_job_count(config)
    by_rule["(tables, figures, warm-up)"] = [small, small * SMALL_JOB_SECONDS / 3600, resources.BASE_MB]
    rows = [
        {"rule": rule, "jobs": n, "core_hours": hours, "peak_mem_mb": mb}
        for rule, (n, hours, mb) in sorted(by_rule.items(), key=lambda kv: -kv[1][1])
    ]
    total = sum(r["core_hours"] for r in rows)
    return rows, total, total / cores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default="config.yaml")
    parser.add_argument("--cores", type=int, default=2, help="cores the wall-time figure assumes")
    args = parser.parse_args(argv)
    config = yaml.safe_load(open(args.configfile))
    rows, total, wall = table(config, args.cores)
    print(f"{'rule':28s} {'jobs':>6s} {'core-hours':>11s} {'peak MB':>9s}")
    for r in rows:
        print(f"{r['rule']:28s} {r['jobs']:6d} {r['core_hours']:11.2f} {r['peak_mem_mb']:9d}")
    jobs = sum(r["jobs"] for r in rows)
    print(f"{'total':28s} {jobs:6d} {total:11.2f} {max(r['peak_mem_mb'] for r in rows):9d}")
    print(f"upper bound on the wall time with {args.cores} cores: {wall:.2f} h ({math.ceil(wall * 60)} min)")


if __name__ == "__main__":
    main()
