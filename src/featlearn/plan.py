"""What a config costs, before anything runs: jobs, core-hours and peak memory per rule.

    python -m featlearn.plan --configfile config.yaml workflow/configs/escape_signal_d2000.yaml
    python -m featlearn.plan --configfile workflow/configs/paper.yaml [--cores 2] \\
        --reference results --reference-config config.yaml

``--configfile`` takes the same list as Snakemake's (merged in order), so it prices any overlay.
Every compute job is listed with the memory and runtime its rule requests: both come from the
job registry (``featlearn.pipeline.jobs``), which the rules read too.  That runtime is an upper
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

from featlearn.pipeline import jobs, resources
from featlearn.pipeline.config_edits import load_config

SMALL_JOB_SECONDS = 5.0  # a table, a figure or a warm-up without a reference run


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

    def path(job):
        return bench / Path(job.benchmark).relative_to(Path(jobs.RESULTS) / "benchmarks")

    measured = [(j, measured_seconds(path(j))) for j in jobs.compute_jobs(config) if path(j).exists()]
    compute = {path(j) for j, _ in measured}
    small = [measured_seconds(p) for p in bench.rglob("*.tsv") if p not in compute]
    return Reference(measured, sum(small) / len(small) if small else SMALL_JOB_SECONDS)


def family(job):
    """What a job is scaled from: its rule's first wildcard (sweep, model, ...), else its rule."""
    names = job.kind.wildcard_names()
    return job.wildcards[names[0]] if names else job.rule


def expected_seconds(job, reference):
    """Eq. (E): ``job`` scaled from its nearest measured counterpart; its upper bound if none."""
    peers = [(j, t) for j, t in reference.jobs if (j.rule, family(j)) == (job.rule, family(job))]
    same_delta = [(j, t) for j, t in peers if j.wildcards.get("delta") == job.wildcards.get("delta")]
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
    for job in jobs.compute_jobs(config):
        row = by_rule[job.rule]
        row[0] += 1
        row[1] += job.threads * job.seconds / 3600
        row[2] += job.threads * (expected_seconds(job, reference) if reference else job.seconds) / 3600
        row[3] = max(row[3], job.mem_mb)
    small = 2 * len(config["sweeps"]) + 20  # tables, figures, warm-ups: per sweep its aggregation and figure
    small_seconds = reference.small_seconds if reference else SMALL_JOB_SECONDS
    hours = (small * seconds / 3600 for seconds in (SMALL_JOB_SECONDS, small_seconds))
    by_rule["(tables, figures, warm-up)"] = [small, *hours, resources.BASE_MB]
    rows = [
        {"rule": rule, "jobs": n, "core_hours": hours, "expected_core_hours": expected, "peak_mem_mb": mb}
        for rule, (n, hours, expected, mb) in sorted(by_rule.items(), key=lambda kv: -kv[1][1])
    ]
    upper = sum(r["core_hours"] for r in rows)
    expected = sum(r["expected_core_hours"] for r in rows)
    return rows, upper, expected, expected / cores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--configfile",
        nargs="+",
        default=["config.yaml"],
        help="config files, merged in order (as Snakemake does)",
    )
    parser.add_argument("--cores", type=int, default=2, help="cores the wall-time figure assumes")
    parser.add_argument("--reference", help="results folder of a finished run (expected times, eq. E)")
    parser.add_argument(
        "--reference-config",
        nargs="+",
        default=["config.yaml"],
        help="the config files that made --reference",
    )
    args = parser.parse_args(argv)
    config = load_config(args.configfile)
    reference = None
    if args.reference:
        reference = load_reference(args.reference, load_config(args.reference_config))
    rows, upper, expected, wall = table(config, args.cores, reference)
    head = "expected" if reference else "(no ref.)"
    print(f"{'rule':28s} {'jobs':>6s} {'core-h bound':>13s} {'core-h ' + head:>17s} {'peak MB':>9s}")
    for r in rows:
        hours = f"{r['core_hours']:13.2f} {r['expected_core_hours']:17.2f}"
        print(f"{r['rule']:28s} {r['jobs']:6d} {hours} {r['peak_mem_mb']:9d}")
    count = sum(r["jobs"] for r in rows)
    print(f"{'total':28s} {count:6d} {upper:13.2f} {expected:17.2f} {max(r['peak_mem_mb'] for r in rows):9d}")
    kind = f"expected (scaled from {args.reference})" if reference else "upper bound"
    print(f"{kind} wall time on {args.cores} cores: {wall:.2f} h ({math.ceil(wall * 60)} min)")


if __name__ == "__main__":
    main()
