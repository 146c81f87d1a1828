"""The Snakemake master's own CPU against its jobs' CPU, per job (issue 42).

    python benchmarks/master_overhead.py tiny                 # the tiny config, a real build
    python benchmarks/master_overhead.py default              # config.yaml, the default target
    python benchmarks/master_overhead.py synthetic            # paper.yaml's DAG, every job a stub
    python benchmarks/master_overhead.py synthetic --configfile config.yaml -- --scheduler greedy
    python benchmarks/master_overhead.py startup              # config.yaml's DAG, jobs that only import
    python benchmarks/master_overhead.py default --keep /tmp/new  # keep the build, to compare it
    python benchmarks/master_overhead.py compare /tmp/base /tmp/new   # two kept builds, side by side

Each mode copies the workflow into a temporary folder (``tests/tiny_build.copy_workflow``) and builds
it with ``snakemake --cores 2`` and any arguments after ``--``, the copy's ``src/`` first on the
Python path (so a checkout of another commit measures its own package).  ``synthetic`` replaces every script
in ``workflow/scripts/`` by a stub that keeps the script's import statements, unexecuted (so
``featlearn.pipeline.deps`` derives the same code inputs: every job keeps its inputs), opens its log
as every script does and creates its outputs: the DAG, the rules, their params, resources, inputs,
logs and benchmark files are those of the config, the science is gone.  ``startup`` (by default
config.yaml's DAG) runs the same stubs with their imports executed: its jobs' CPU is the floor every
job of that build pays before any science (the Python interpreter, Snakemake's script preamble, the
script's imports), to set against a real build's jobs' CPU.

What is counted.  Snakemake runs inside this file's own interpreter (``_master``: it calls
``snakemake.cli.main``), which writes at exit

* master: ``getrusage(RUSAGE_SELF)``, user + system CPU of the Snakemake process, all its threads
  (parsing, DAG, scheduler, job threads, benchmark polling), no child process;
* solver: the CPU of the ILP scheduler's CBC processes (the default ``--scheduler ilp``), each
  reaped with ``os.wait4``: scheduling work done in a child;
* jobs: ``getrusage(RUSAGE_CHILDREN)`` less the solver, i.e. every job process and its descendants.

The report gives the jobs run (Snakemake's "N of N steps"), the wall time, these three CPU times,
the master's CPU per job, the scheduling rounds that found jobs ready (calls of
``JobScheduler.job_selector``), master / jobs and (master + solver) / jobs; the ``dry run`` line is
the master's CPU of ``snakemake -n`` in a fresh copy (parsing and building the DAG, one scheduling
pass), the part of the master's cost that does not depend on running jobs.

A kept build (``--keep``) holds its measurement, ``master_overhead.json``.  ``compare BASE NEW``
reads two of them (e.g. the default target built by two commits, one after the other on one
machine) and prints

* each build's report line and NEW / BASE of its wall time, master CPU and jobs' CPU;
* the jobs' wall times from their benchmark records (``results/benchmarks/**.tsv``, field ``s``)
  summed per group (the first folder under ``results/benchmarks/``), and over the jobs both builds
  ran (same record path) with their ratio.  Wall times, not the records' ``cpu_time``: a record
  Snakemake writes polls the process tree and can miss CPU, a job's own record cannot, so the two
  CPU fields are not comparable across commits that write them differently;
* which of the tables (``results/tables/``) are byte-identical, which differ, which only one has.
"""

import argparse
import ast
import atexit
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from tiny_build import TINY, copy_workflow  # noqa: E402

from featlearn.plan import measured_seconds  # noqa: E402

DEFAULT = ROOT / "config.yaml"
MODE_CONFIG = {"synthetic": ROOT / "workflow" / "configs" / "paper.yaml", "startup": DEFAULT}
"""The stubbed modes' configs where ``--configfile`` names none."""

STUB = '''\
"""Stub of {name} (benchmarks/master_overhead.py): its imports give the rule the same derived code
inputs (they run only under the startup mode); it opens its log as every script does
(featlearn.io.job.logger) and creates its outputs (a directory for an output without a suffix)."""
from pathlib import Path

from featlearn.io.job import logger

if {run}:
{imports}

logger(snakemake.log[0])("stub")
for path in map(Path, snakemake.output):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.mkdir() if path.suffix == "" else path.write_text("")
'''


def stub(script, run=False):
    """The stub source of ``script``: its import statements under ``if False:`` (``if True:`` with
    ``run``), then its outputs."""
    tree = ast.parse(script.read_text())
    imports = [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
    lines = [f"    {ast.unparse(node)}" for node in imports] or ["    pass"]
    return STUB.format(name=script.name, imports="\n".join(lines), run=run)


def stub_scripts(workdir, run=False):
    """Replace every workflow script in ``workdir`` by its stub (:func:`stub`)."""
    for script in (workdir / "workflow" / "scripts").glob("*.py"):
        script.write_text(stub(script, run))


def cpu(usage):
    """User + system seconds of a ``resource.struct_rusage``."""
    return usage.ru_utime + usage.ru_stime


class SolverPopen(subprocess.Popen):
    """``subprocess.Popen`` for pulp's CBC runs: ``wait`` reaps with ``os.wait4`` and adds the
    process's CPU to ``SOLVER_CPU``."""

    def wait(self, timeout=None):
        if self.returncode is None:
            _, status, usage = os.wait4(self.pid, 0)
            SOLVER_CPU[0] += cpu(usage)
            self.returncode = os.waitstatus_to_exitcode(status)
        return self.returncode


SOLVER_CPU = [0.0]


def count_solver():
    """Route pulp's CBC processes through ``SolverPopen`` (pulp is imported lazily by the ILP
    scheduler; its coin_api module names ``subprocess`` as a module attribute)."""
    from pulp.apis import coin_api

    coin_api.subprocess = types.SimpleNamespace(**{**vars(subprocess), "Popen": SolverPopen})


def count_rounds():
    """Count the scheduler's job selections (``JobScheduler.job_selector``, once per scheduling round
    that finds jobs ready) in ``ROUNDS``."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    select = JobScheduler.job_selector

    def counted(self, jobs):
        ROUNDS[0] += 1
        return select(self, jobs)

    JobScheduler.job_selector = counted


ROUNDS = [0]


def master(report, argv):
    """Run ``snakemake.cli.main(argv)`` in this process and write its rusage to ``report`` at exit."""
    from snakemake.cli import main

    def write():
        usage = cpu(resource.getrusage(resource.RUSAGE_SELF))
        children = cpu(resource.getrusage(resource.RUSAGE_CHILDREN))
        record = {
            "master": usage,
            "solver": SOLVER_CPU[0],
            "jobs": children - SOLVER_CPU[0],
            "rounds": ROUNDS[0],
        }
        Path(report).write_text(json.dumps(record))

    count_solver()
    count_rounds()
    atexit.register(write)
    main(argv)


def measured(workdir, args):
    """{master, solver, jobs, wall, steps} of ``snakemake --cores 2 ARGS`` in ``workdir``; its log
    in ``workdir/master_overhead.log``."""
    report = workdir / "master_overhead.json"
    command = [sys.executable, __file__, "_master", str(report), "--cores", "2", *args]
    env = {**os.environ, "PYTHONPATH": str(workdir / "src")}  # the copy's package, not the installed one
    start = time.monotonic()
    with open(workdir / "master_overhead.log", "w") as log:
        proc = subprocess.run(command, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, env=env)
    wall = time.monotonic() - start
    text = (workdir / "master_overhead.log").read_text()
    if proc.returncode != 0:
        raise RuntimeError(f"snakemake failed in {workdir}:\n{text[-3000:]}")
    counts = re.findall(r"(\d+) of \d+ steps \(100%\) done|^total\s+(\d+)", text, re.M)
    steps = int(max(counts[-1])) if counts else 0
    record = {**json.loads(report.read_text()), "wall": wall, "steps": steps}
    report.write_text(json.dumps(record))  # the kept build's measurement, for ``compare``
    return record


def prepared(dest, mode, configfile):
    """A copy of the workflow in ``dest`` for ``mode`` (stubbed scripts for ``synthetic`` and
    ``startup``, whose stubs run their imports)."""
    dest.mkdir(parents=True, exist_ok=True)
    copy_workflow(dest, {"tiny": TINY, "default": DEFAULT}.get(mode) or configfile or MODE_CONFIG[mode])
    if mode in MODE_CONFIG:
        stub_scripts(dest, run=mode == "startup")
    return dest


def line(name, r):
    """One report line of a measurement ``r`` (the ratios to the jobs' CPU where jobs ran)."""
    per_job = r["master"] / max(r["steps"], 1)
    head = (
        f"{name:8s} {r['steps']:5d} jobs  wall {r['wall']:7.1f} s  master {r['master']:7.1f}  "
        f"solver {r['solver']:6.1f}  jobs {r['jobs']:7.1f} CPU-s  master per job {per_job:.3f} s  "
        f"{r['rounds']} rounds"
    )
    if r["jobs"] < 1:
        return head
    both = (r["master"] + r["solver"]) / r["jobs"]
    return f"{head}  master/jobs {r['master'] / r['jobs']:.1%}  (master+solver)/jobs {both:.1%}"


def job_walls(build):
    """{record path under results/benchmarks/: wall seconds} of a build's benchmark records, read as
    ``plan --reference`` reads them (``featlearn.plan.measured_seconds``)."""
    root = build / "results" / "benchmarks"
    return {str(path.relative_to(root)): measured_seconds(path) for path in sorted(root.rglob("*.tsv"))}


def table_changes(base, new):
    """(identical, differing, only in base, only in new): the file names of their results tables."""
    a, b = ({p.name: p for p in (build / "results" / "tables").glob("*")} for build in (base, new))
    common = sorted(set(a) & set(b))
    same = [name for name in common if a[name].read_bytes() == b[name].read_bytes()]
    return same, sorted(set(common) - set(same)), sorted(set(a) - set(b)), sorted(set(b) - set(a))


def compare(base, new):
    """The report lines of two kept builds side by side (module docstring)."""
    runs = [json.loads((build / "master_overhead.json").read_text()) for build in (base, new)]
    out = [line("base", runs[0]), line("new", runs[1])]
    out.append(
        "new/base  "
        + "  ".join(
            f"{key} {runs[1][key] / runs[0][key]:.2f}x" for key in ("wall", "master", "jobs") if runs[0][key]
        )
    )
    walls = [job_walls(build) for build in (base, new)]
    group_of = {path: path.split("/")[0].removesuffix(".tsv") for w in walls for path in w}
    groups = sorted(set(group_of.values()))
    out.append(f"{'job records':24s} {'base':>5s} {'wall s':>8s} {'new':>5s} {'wall s':>8s}")
    for group in groups:
        cells = [[s for path, s in w.items() if group_of[path] == group] for w in walls]
        out.append(
            f"{group:24s} {len(cells[0]):5d} {sum(cells[0]):8.1f} {len(cells[1]):5d} {sum(cells[1]):8.1f}"
        )
    common = set(walls[0]) & set(walls[1])
    both = [sum(w[path] for path in common) for w in walls]
    ratio = f"  new/base {both[1] / both[0]:.2f}x" if both[0] else ""
    out.append(f"{'jobs in both':24s} {len(common):5d} {both[0]:8.1f} {len(common):5d} {both[1]:8.1f}{ratio}")
    same, differ, gone, added = table_changes(base, new)
    out.append(f"tables: {len(same)} byte-identical, {len(differ)} differ: {', '.join(differ) or '-'}")
    out.append(f"tables only in base: {', '.join(gone) or '-'}; only in new: {', '.join(added) or '-'}")
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("tiny", "default", "synthetic", "startup", "compare"))
    parser.add_argument("builds", nargs="*", type=Path, help="compare: two kept builds, BASE NEW")
    parser.add_argument("--configfile", type=Path, help="the stubbed modes' config (module docstring)")
    parser.add_argument("--keep", type=Path, help="build here (an empty folder) and keep it")
    argv = sys.argv[1:] if argv is None else argv
    cut = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:cut])
    if len(args.builds) != (2 if args.mode == "compare" else 0):
        parser.error("compare takes two kept builds, BASE NEW; the other modes none")
    if args.mode == "compare":
        print("\n".join(compare(*args.builds)))
        return
    args.snakemake_args = argv[cut + 1 :]  # more Snakemake arguments, after --
    with tempfile.TemporaryDirectory() as tmp:
        dry = measured(prepared(Path(tmp) / "dry", args.mode, args.configfile), ["-n"])
        print(line("dry run", dry), flush=True)
        build = prepared(args.keep or Path(tmp) / "build", args.mode, args.configfile)
        print(line("build", measured(build, args.snakemake_args)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["_master"]:
        master(sys.argv[2], sys.argv[3:])
    else:
        main()
