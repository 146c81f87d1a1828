"""Every job of a config's whole DAG, as JSON: the record a workflow-layer refactor must leave unchanged.

    python tests/dag_dump.py OUT.json [--configfile config.yaml workflow/configs/design.yaml ...]
    python tests/dag_dump.py --shipped DIR      # every shipped config: DIR/<config>.json
    python tests/dag_dump.py OUT.json --plan [--configfile ...]   # what this tree would run

Run in a workflow folder (the repository root or a copy).  Snakemake parses the workflow, builds the
DAG of every rule's targets with ``--forceall`` semantics (so an up-to-date tree dumps the same
jobs as a fresh one) and, per job, this writes its rule, wildcards, named inputs, outputs, logs,
params (input functions evaluated), threads and resources, and its rule's wildcard constraints;
jobs sorted by (rule, wildcards); and per rule the script its jobs run (:func:`rule_scripts`).
Machine-dependent resources (cores, nodes, tmpdir) and the Snakemake-internal ones
(``_``-prefixed) are left out.  The code stamps' paths are kept (their
names), not their contents.  ``--shipped`` dumps config.yaml, tiny.yaml and paper.yaml alone and
every other file of workflow/configs/ as the overlay it is, after config.yaml; comparing two such
folders (``diff -r``) before and after a change of the workflow layer shows every job it changed.
"""

import inspect
import json
import subprocess
import sys
from pathlib import Path

MACHINE_RESOURCES = {"_cores", "_nodes", "tmpdir", "_job_count"}


def _plain(value):
    """``value`` as JSON data: Snakemake's named lists as {name: value} or lists, the rest by str."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return str(value)


def _named(io):
    """A Snakemake ``Namedlist`` as {name: value} for its named entries plus ``_`` for the list."""
    names = dict(io._names) if hasattr(io, "_names") else {}
    out = {
        name: _plain(io[start:end] if end is not None else io[start]) for name, (start, end) in names.items()
    }
    return {"_": [str(f) for f in io], **out}


def job_record(job):
    """The record of one Snakemake job."""
    resources = {
        k: _plain(v) for k, v in job.resources.items() if k not in MACHINE_RESOURCES and not k.startswith("_")
    }
    params = {k: _plain(v) for k, v in job.params.items()}
    return {
        "rule": job.rule.name,
        "wildcards": {k: str(v) for k, v in job.wildcards_dict.items()},
        "input": _named(job.input),
        "output": _named(job.output),
        "log": _named(job.log),
        "params": params,
        "threads": job.threads,
        "resources": resources,
        "wildcard_constraints": {k: str(v) for k, v in sorted(job.rule.wildcard_constraints.items())},
    }


class _Ran(Exception):
    """Raised by :func:`rule_scripts`'s stand-in for Snakemake's ``script``, with the path it got."""


def rule_scripts(workflow):
    """{rule: the script its job runs}: each rule's run function called as a job calls it (its
    ``rule`` argument the rule's name) with Snakemake's ``script`` replaced by a recorder.  A script
    directive is evaluated again when a job runs, so this is what runs, not the parse-time path a
    loop over rules could get right while the run-time one names another rule's script."""

    def recorder(path, *args, **kwargs):
        raise _Ran(path)

    def ran(rule):
        params = inspect.signature(rule.run_func).parameters
        try:
            rule.run_func(**{name: rule.name if name == "rule" else None for name in params})
        except _Ran as record:
            return Path(str(record.args[0])).name
        return None  # a rule without a script (``all``)

    saved = workflow.globals["script"]
    workflow.globals["script"] = recorder
    try:
        return {rule.name: ran(rule) for rule in workflow.rules}
    finally:
        workflow.globals["script"] = saved


def dump(out, configfiles, plan=False):
    """Build the DAG of every target of ``configfiles`` (Snakemake's ``--configfile``) in this folder
    and write its jobs' records to ``out``; with ``plan``, the DAG of what is to be done on this
    tree (not ``--forceall``), each record with ``needrun``: whether Snakemake schedules the job."""
    import snakemake.api  # noqa: F401  (imports snakemake.workflow without a cycle)
    import snakemake.workflow
    from snakemake.cli import main

    def record(workflow):
        workflow._prepare_dag(forceall=not plan, ignore_incomplete=True, lock_warn_only=True, nolock=plan)
        workflow._build_dag()
        planned = (
            job_record(job) | ({"needrun": workflow.dag.needrun(job)} if plan else {})
            for job in workflow.dag.jobs
        )
        jobs = sorted(
            planned,
            key=lambda r: (r["rule"], sorted(r["wildcards"].items())),
        )
        record = {"rules": rule_scripts(workflow), "jobs": jobs}
        Path(out).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    snakemake.workflow.Workflow.printdag = record
    argv = ["--dag", "--cores", "1", "--quiet", "all"]
    if configfiles:
        argv += ["--configfile", *configfiles]
    try:
        main(argv)
    except SystemExit as exit:
        if exit.code:
            raise


def shipped_configs(root):
    """{name: --configfile list} of every shipped config, relative to the workflow folder ``root``."""
    configs = {"config": ["config.yaml"]}
    for path in sorted((root / "workflow" / "configs").glob("*.yaml")):
        alone = path.stem in ("tiny", "paper")
        configs[path.stem] = (
            [str(path.relative_to(root))] if alone else ["config.yaml", str(path.relative_to(root))]
        )
    return configs


def dump_shipped(folder):
    """The dump of every shipped config into ``folder``, one Snakemake process each."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    for name, files in shipped_configs(Path.cwd()).items():
        out = Path(folder) / f"{name}.json"
        subprocess.run(
            [sys.executable, __file__, str(out), "--configfile", *files], check=True, capture_output=True
        )
        print(f"{name}: {len(json.loads(out.read_text())['jobs'])} jobs", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["--shipped"]:
        dump_shipped(args[1])
        sys.exit()
    plan = "--plan" in args
    args = [a for a in args if a != "--plan"]
    configs = args[args.index("--configfile") + 1 :] if "--configfile" in args else []
    dump(args[0], configs, plan)
