"""A job's own benchmark record: its wall time, CPU time and peak memory, written by the job when it
exits, in the TSV format of Snakemake's ``benchmark:`` files.

Snakemake's ``benchmark:`` samples a job's process tree from the master (psutil, reading
``/proc/<pid>/smaps_rollup`` of every process: every 0.5 s for the job's first 30 s, then every
30 s), which costs the master CPU at every sample and misses a peak between two.  A rule that
declares a log named ``usage`` instead has its job write this record there at exit
(:func:`record_at_exit`, called by ``featlearn.io.job.logger``, which every script calls), from the
kernel's own accounting:

* ``s``, ``h:m:s``: wall time since the job's process started (``/proc/self/stat``);
* ``max_rss``: the peak resident memory (MiB) of the process (``VmHWM`` of ``/proc/self/status``:
  the high-water mark of this process's own address space), or of a child it waited for if that was
  larger (``getrusage``'s ``ru_maxrss`` of the children), exact rather than sampled.  Not the
  process's own ``ru_maxrss``: Linux carries the forking parent's high-water mark into it across
  ``execve``, so a job started by a large master would report the master's memory;
* ``cpu_time``: user + system seconds of the process and the children it waited for;
* ``mean_load``: ``cpu_time`` / ``s`` in percent, as Snakemake's column;
* ``max_vms``, ``max_uss``, ``max_pss``, ``io_in``, ``io_out``: not measured, ``NA`` (Snakemake's
  mark for a value it could not collect).

``featlearn.plan`` (``--reference``), the manuscript's performance section and the resource tests read
``s`` and ``max_rss`` of either kind of file.
"""

import atexit
import datetime
import functools
import os
import resource
import sys
import time
from pathlib import Path

HEADER = (
    "s",
    "h:m:s",
    "max_rss",
    "max_vms",
    "max_uss",
    "max_pss",
    "io_in",
    "io_out",
    "mean_load",
    "cpu_time",
)
"""The columns of a Snakemake benchmark file (``snakemake.benchmark.BenchmarkRecord``)."""


def process_seconds():
    """Wall seconds since this process started: its start time (field 22 of ``/proc/self/stat``, in
    clock ticks since boot) against the boot-time clock."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    started = int(fields[19]) / os.sysconf("SC_CLK_TCK")
    return time.clock_gettime(time.CLOCK_BOOTTIME) - started


def peak_rss_kib():
    """The high-water mark of this process's resident memory in KiB (``VmHWM`` of ``/proc/self/status``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise RuntimeError("/proc/self/status has no VmHWM")


def hms(seconds):
    """``H:MM:SS`` of whole seconds, with a ``N day(s), `` prefix past a day (Snakemake's ``h:m:s``)."""
    days, rest = divmod(int(seconds), 86400)
    clock = str(datetime.timedelta(seconds=rest))
    return f"{days} day{'s' if days != 1 else ''}, {clock}" if days else clock


def record():
    """The TSV text (header and one row) of this process's usage so far."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
    seconds = process_seconds()
    rss_mib = max(peak_rss_kib(), children.ru_maxrss) / 1024  # both in KiB
    load = 100 * cpu / seconds
    row = [f"{seconds:.2f}", hms(seconds), f"{rss_mib:.2f}", *["NA"] * 5, f"{load:.2f}", f"{cpu:.2f}"]
    return "\t".join(HEADER) + "\n" + "\t".join(row) + "\n"


@functools.cache
def record_at_exit():
    """When this process runs a Snakemake script whose rule declares a log named ``usage``, write the
    record there at exit (:mod:`atexit`: also when the script raises); once per process."""
    smk = getattr(sys.modules.get("__main__"), "snakemake", None)
    path = getattr(getattr(smk, "log", None), "usage", None)
    if path is not None:
        atexit.register(lambda: Path(path).write_text(record()))
