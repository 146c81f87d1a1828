"""The resource model (featlearn.pipeline.resources, featlearn.plan) against a finished run.

Reads the run's benchmark files (``results/benchmarks/**.tsv``: wall seconds and peak RSS of every
job) and prints three checks as ratios:

1. Requests.  Per rule, measured / requested runtime (must stay ≤ 1: a cluster kills a job that
   outlives its request) and requested / measured (how much the upper bound over-asks), and the
   same for memory (``max_rss`` against ``mem_mb``).
2. Extrapolation in d.  Every sweep cell at its sweep's largest d is predicted by eq. (E) of
   featlearn.plan from a reference that leaves out all those cells (so from smaller d only), and
   compared with its measurement: the test of the expected-time model on jobs it has not seen.
3. The whole run.  The expected wall time on ``--cores`` from that same reduced reference, against
   the measured wall time (``--wall``, e.g. the ``time`` of the run).

    python benchmarks/resource_model.py --results results --configfile config.yaml --wall 319
"""

import argparse
import csv
import statistics
from collections import defaultdict
from pathlib import Path

from featlearn import plan
from featlearn.pipeline import jobs, resources


def peak_rss(path):
    with open(path) as f:
        return float(next(csv.DictReader(f, delimiter="\t"))["max_rss"])


def requests(config, bench):
    """Per rule: max measured/requested runtime, median requested/measured, max RSS/mem_mb."""
    by_rule = defaultdict(list)
    for job in jobs.compute_jobs(config):
        path = bench / Path(job.benchmark).relative_to("results/benchmarks")
        if path.exists():
            seconds = plan.measured_seconds(path)
            request = 60 * resources.minutes(job.seconds)
            by_rule[job.rule].append(
                (seconds / request, request / max(seconds, 1e-3), peak_rss(path) / job.mem_mb)
            )
    print("1. requests per rule (runtime: measured/requested ≤ 1; memory: max_rss/mem_mb ≤ 1)")
    print(f"   {'rule':22s} {'jobs':>5s} {'max meas/req':>13s} {'median req/meas':>16s} {'max rss/mem':>12s}")
    for rule, rows in sorted(by_rule.items()):
        worst = max(r[0] for r in rows)
        over = statistics.median(r[1] for r in rows)
        rss = max(r[2] for r in rows)
        print(f"   {rule:22s} {len(rows):5d} {worst:13.3f} {over:16.1f} {rss:12.2f}")


def largest_d_cells(config):
    """Benchmarks of the cells at the largest d of every sweep that has more than one d."""
    largest = {name: max(spec["d"]) for name, spec in config["sweeps"].items() if len(spec["d"]) > 1}
    return {
        j.benchmark
        for j in jobs.compute_jobs(config)
        if j.rule == "sweep_block" and int(j.wildcards["d"]) == largest.get(j.wildcards["sweep"])
    }


def extrapolation(config, results):
    held_out = largest_d_cells(config)
    full = plan.load_reference(results, config)
    reduced = plan.Reference(
        [(j, t) for j, t in full.jobs if j.benchmark not in held_out], full.small_seconds
    )
    pairs = [(plan.expected_seconds(j, reduced), t) for j, t in full.jobs if j.benchmark in held_out]
    ratios = [p / t for p, t in pairs]
    total_p, total_t = sum(p for p, _ in pairs), sum(t for _, t in pairs)
    print(f"2. sweep cells at the largest d of each sweep with several d ({len(pairs)}), from smaller d only")
    if not pairs:
        print(f"   none measured under {results}")
        return reduced
    low, mid, high = min(ratios), statistics.median(ratios), max(ratios)
    print(f"   predicted/measured per cell: min {low:.2f}, median {mid:.2f}, max {high:.2f}")
    print(f"   total: predicted {total_p:.0f} s, measured {total_t:.0f} s, ratio {total_p / total_t:.2f}")
    return reduced


def whole_run(config, reduced, cores, wall):
    _, upper, _, expected_wall = plan.table(config, cores, reduced)
    bound, expected = upper * 3600 / cores, expected_wall * 3600
    print(f"3. whole run on {cores} cores: upper bound {bound:.0f} s, expected {expected:.0f} s", end="")
    if wall:
        print(f", measured {wall:.0f} s: expected/measured {expected / wall:.2f}", end="")
        print(f", bound/measured {bound / wall:.1f}")
    else:
        print()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default="results")
    parser.add_argument("--configfile", nargs="+", default=["config.yaml"], help="merged in order")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--wall", type=float, help="measured wall seconds of the run")
    args = parser.parse_args()
    config = plan.load_config(args.configfile)
    requests(config, Path(args.results) / "benchmarks")
    reduced = extrapolation(config, args.results)
    whole_run(config, reduced, args.cores, args.wall)


if __name__ == "__main__":
    main()
