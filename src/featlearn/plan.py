"""What a config costs, before anything runs: jobs, core-hours and peak memory per rule.

    python -m featlearn.plan --configfile workflow/configs/paper.yaml [--cores 2]
    python -m featlearn.plan --configfile workflow/configs/paper.yaml \\
        --reference results --reference-config config.yaml

Every compute job is listed with the memory and runtime its rule requests
(``featlearn.pipeline.resources``, the same functions the rules call).  That runtime is an upper
bound: every trial is charged its whole step budget, while a trial that escapes stops at
``freeze_rho`` and one that fails stops at its certified minimum (``early_stop``).

The *expected* time needs to know how early trials stop, which only a run can tell.  With
``--reference`` (the results folder of a finished run and the config that made it), every job is
scaled from its nearest measured counterpart: the same rule and sweep (or model), at the same δ
if there is one, its measured time (``benchmarks/*.tsv``) beyond ``JOB_START`` multiplied by the
ratio of the two jobs' upper bounds beyond ``JOB_START`` (eq. E):

    t_expected = JOB_START + (t_measured,ref − JOB_START) · (u − JOB_START) / (u_ref − JOB_START)   (E)

A job with no counterpart keeps its upper bound.  Tables, figures and warm-ups are counted at the
reference run's mean small-job time (``SMALL_JOB_SECONDS`` without a reference).
"""

import argparse
import csv
import math
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import yaml

from featlearn.pipeline import resources, settings

SMALL_JOB_SECONDS = 5.0  # a table, a figure or a warm-up without a reference run


class Job(NamedTuple):
    """One compute job: its rule, its family (sweep or model: what it is scaled from), its d and δ
    (or None), its benchmark file (relative to ``results/benchmarks``), threads, requested memory
    and upper-bound seconds."""

    rule: str
    family: str
    d: int | None
    delta: float | None
    benchmark: str
    threads: int
    mem_mb: int
    seconds: float


def compute_jobs(config):
    """Every compute job of ``config`` (list of ``Job``)."""
    threads = config["threads"]
    jobs = []
    for name, spec in config["sweeps"].items():
        s = settings.sweep_settings(config, name)
        for d in spec["d"]:
            for delta in spec["delta"]:
                mb = resources.gd_cell_mem_mb(d, delta, s.n_test, s.dtype)
                seconds = resources.gd_cell_seconds(d, delta, s.dtype, s.steps, s.trials, s.m)
                bench = f"sweeps/{name}/d{d}_delta{delta:g}.tsv"
                jobs.append(Job("sweep_cell", name, d, delta, bench, threads, mb, seconds))
    for name in config["grokking"]:
        s = settings.long_run_settings(config, name)
        mb = resources.gd_cell_mem_mb(s.d, s.delta, s.n_test, s.dtype)
        seconds = resources.gd_cell_seconds(s.d, s.delta, s.dtype, s.steps, 1, s.m)
        jobs.append(Job("grokking_run", name, s.d, s.delta, f"grokking/{name}.tsv", threads, mb, seconds))
    for activation, deltas in config["hessian"]["delta"].items():
        s = settings.plateau_settings(config, activation)
        for delta in deltas:
            seconds = resources.restricted_seconds(s.d, delta, s.steps, s.seeds, s.checkpoints + 1, s.m)
            mb = resources.restricted_mem_mb(s.d, delta, s.m)
            bench = f"hessian/{activation}/delta{delta:g}.tsv"
            jobs.append(Job("hessian_cell", activation, s.d, delta, bench, threads, mb, seconds))
    s = settings.plateau_settings(config, config["landscape"]["activation"])
    for delta in config["landscape"]["delta"]:
        seconds = resources.landscape_seconds(s.d, delta, s.steps, s.m)
        mb = resources.restricted_mem_mb(s.d, delta, s.m)
        bench = f"landscape/{s.activation}/delta{delta:g}.tsv"
        jobs.append(Job("landscape_cell", s.activation, s.d, delta, bench, threads, mb, seconds))
    theory = config["theory"]
    for model, deltas in theory["simulation"]["delta"].items():
        s = settings.referee_settings(config, model)
        for delta in deltas:
            seconds = resources.restricted_seconds(s.d, delta, s.steps, s.seeds, len(s.spectrum_steps))
            mb = resources.restricted_mem_mb(s.d, delta)
            bench = f"theory/sim_{model}_delta{delta:g}.tsv"
            jobs.append(Job("theory_sim_cell", model, s.d, delta, bench, threads, mb, seconds))
    for model, spec in theory["models"].items():
        for n in sorted({spec.get("n_paths", theory["n_paths"]), *theory["n_paths_scan"]}):
            seconds = resources.dmft_seconds(n, theory["horizon"], len(spec["delta"]))
            mb = resources.dmft_mem_mb(n, theory["horizon"])
            jobs.append(
                Job("dmft_model", model, None, None, f"theory/dmft_{model}_N{n}.tsv", threads, mb, seconds)
            )
        bench = f"theory/fixed_point_{model}.tsv"
        jobs.append(
            Job(
                "fixed_point_model",
                model,
                None,
                None,
                bench,
                threads,
                resources.BASE_MB,
                10.0 * len(spec["delta"]),
            )
        )
    escape = config["escape"]
    for kind, cases in (("linear", escape["cases"]), ("signal", escape["signal"]["cases"])):
        for model, deltas in cases.items():
            s = settings.escape_settings(config, model)
            for delta in deltas:
                mb, seconds = resources.escape_cell(kind, s, delta, escape["signal"]["m0"])
                bench = f"escape/{kind}_{model}_delta{delta:g}.tsv"
                jobs.append(Job(f"escape_{kind}_cell", model, s.d, delta, bench, threads, mb, seconds))
    for model, spec in escape["prediction"]["models"].items():
        s = settings.prediction_settings(config, model)
        mb = resources.prediction_mem_mb(s.n_paths, s.horizon, s.samples)
        seconds = resources.prediction_seconds(s.n_paths, s.horizon, s.samples, len(s.d), len(s.rho_c))
        for delta in spec["delta"]:
            bench = f"escape/prediction_{model}_delta{delta:g}.tsv"
            jobs.append(Job("escape_prediction_cell", model, None, delta, bench, threads, mb, seconds))
    two_stage = escape.get("two_stage")
    for model, spec in two_stage["models"].items() if two_stage else ():
        s = settings.two_stage_settings(config, model)
        mb = resources.dmft_mem_mb(s.n_paths, s.horizon)
        seconds = resources.two_stage_seconds(s.n_paths, s.horizon, len(s.m0) * len(s.t0))
        for delta in spec["delta"]:
            bench = f"escape/two_stage_{model}_delta{delta:g}.tsv"
            jobs.append(Job("escape_two_stage_cell", model, None, delta, bench, threads, mb, seconds))
    conventions = config.get("conventions")
    for name in conventions["grid"] if conventions else ():
        for activation in conventions["activations"]:
            s = settings.convention_settings(config, name, activation)
            cells, largest = resources.scan_extent(conventions["coarse"][activation], conventions["refine"])
            for d in conventions["d"]:
                mb = resources.gd_cell_mem_mb(d, largest, s.n_test, s.dtype)
                seconds = cells * resources.gd_cell_seconds(d, largest, s.dtype, s.steps, s.trials, s.m)
                bench = f"conventions/scan_{name}_{activation}_d{d}.tsv"
                jobs.append(Job("convention_scan", name, d, None, bench, threads, mb, seconds))
        p = conventions["plateau"]
        s = settings.convention_settings(config, name, p["activation"], steps=p["steps"])
        mb = resources.gd_cell_mem_mb(p["d"], p["delta"], s.n_test, s.dtype)
        seconds = resources.gd_cell_seconds(p["d"], p["delta"], s.dtype, s.steps, 1, s.m)
        jobs.append(
            Job(
                "convention_plateau",
                name,
                p["d"],
                p["delta"],
                f"conventions/plateau_{name}.tsv",
                threads,
                mb,
                seconds,
            )
        )
    spectral = config["spectral"]
    for d in spectral["d"]:
        mb = resources.spectral_mem_mb(d, max(spectral["delta"]))
        seconds = resources.spectral_seconds(d, spectral["delta"], spectral["trials"])
        jobs.append(
            Job("spectral_overlap", "spectral", d, None, f"spectral/overlap_d{d}.tsv", 1, mb, seconds)
        )
    return jobs


def small_job_count(config):
    """Tables, figures and warm-ups: one per sweep (aggregation, figure), per figure, per table."""
    sweeps = len(config["sweeps"])
    return 2 * sweeps + 20


def measured_seconds(path):
    """Wall seconds of one Snakemake benchmark file (first repetition)."""
    with open(path) as f:
        return float(next(csv.DictReader(f, delimiter="\t"))["s"])


class Reference(NamedTuple):
    """A finished run: its compute jobs with measured seconds, and its mean small-job time."""

    jobs: list  # [(Job, measured seconds)]
    small_seconds: float


def load_reference(results, config):
    """The measured jobs of a finished run of ``config`` whose outputs are in ``results``."""
    bench = Path(results) / "benchmarks"
    jobs = [
        (j, measured_seconds(bench / j.benchmark))
        for j in compute_jobs(config)
        if (bench / j.benchmark).exists()
    ]
    compute = {j.benchmark for j, _ in jobs}
    small = [measured_seconds(p) for p in bench.rglob("*.tsv") if str(p.relative_to(bench)) not in compute]
    return Reference(jobs, sum(small) / len(small) if small else SMALL_JOB_SECONDS)


def expected_seconds(job, reference):
    """Eq. (E): ``job`` scaled from its nearest measured counterpart; its upper bound if none."""
    peers = [(j, t) for j, t in reference.jobs if (j.rule, j.family) == (job.rule, job.family)]
    same_delta = [(j, t) for j, t in peers if j.delta == job.delta]
    peers = same_delta or peers
    if not peers:
        return job.seconds
    start = resources.JOB_START
    work = max(job.seconds - start, 1e-9)

    def distance(peer):
        return abs(math.log(max(peer[0].seconds - start, 1e-9) / work))

    ref, measured = min(peers, key=distance)
    return start + max(measured - start, 0.0) * work / max(ref.seconds - start, 1e-9)


def table(config, cores, reference=None):
    """Rows {rule, jobs, core_hours, expected_core_hours, peak_mem_mb} and the totals: upper-bound and
    expected core-hours, and the expected wall hours on ``cores``."""
    by_rule = defaultdict(lambda: [0, 0.0, 0.0, 0])
    for job in compute_jobs(config):
        row = by_rule[job.rule]
        row[0] += 1
        row[1] += job.threads * job.seconds / 3600
        row[2] += job.threads * (expected_seconds(job, reference) if reference else job.seconds) / 3600
        row[3] = max(row[3], job.mem_mb)
    small = small_job_count(config)
    small_seconds = reference.small_seconds if reference else SMALL_JOB_SECONDS
    by_rule["(tables, figures, warm-up)"] = [
        small,
        small * SMALL_JOB_SECONDS / 3600,
        small * small_seconds / 3600,
        resources.BASE_MB,
    ]
    rows = [
        {"rule": rule, "jobs": n, "core_hours": hours, "expected_core_hours": expected, "peak_mem_mb": mb}
        for rule, (n, hours, expected, mb) in sorted(by_rule.items(), key=lambda kv: -kv[1][1])
    ]
    upper = sum(r["core_hours"] for r in rows)
    expected = sum(r["expected_core_hours"] for r in rows)
    return rows, upper, expected, expected / cores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configfile", default="config.yaml")
    parser.add_argument("--cores", type=int, default=2, help="cores the wall-time figure assumes")
    parser.add_argument("--reference", help="results folder of a finished run (expected times, eq. E)")
    parser.add_argument("--reference-config", default="config.yaml", help="the config that made --reference")
    args = parser.parse_args(argv)
    config = yaml.safe_load(open(args.configfile))
    reference = None
    if args.reference:
        reference = load_reference(args.reference, yaml.safe_load(open(args.reference_config)))
    rows, upper, expected, wall = table(config, args.cores, reference)
    head = "expected" if reference else "(no ref.)"
    print(f"{'rule':28s} {'jobs':>6s} {'core-h bound':>13s} {'core-h ' + head:>17s} {'peak MB':>9s}")
    for r in rows:
        hours = f"{r['core_hours']:13.2f} {r['expected_core_hours']:17.2f}"
        print(f"{r['rule']:28s} {r['jobs']:6d} {hours} {r['peak_mem_mb']:9d}")
    jobs = sum(r["jobs"] for r in rows)
    print(f"{'total':28s} {jobs:6d} {upper:13.2f} {expected:17.2f} {max(r['peak_mem_mb'] for r in rows):9d}")
    kind = f"expected (scaled from {args.reference})" if reference else "upper bound"
    print(f"{kind} wall time on {args.cores} cores: {wall:.2f} h ({math.ceil(wall * 60)} min)")


if __name__ == "__main__":
    main()
