"""Where everything of a build comes from: a rule, a config key or a results file, explained.

    python -m featlearn.pipeline.explain hessian_table                 # a rule
    python -m featlearn.pipeline.explain hessian.grad_tol              # a config key
    python -m featlearn.pipeline.explain results/tables/thresholds.csv # a results file
    python -m featlearn.pipeline.explain --keys                        # every key of the config
    python -m featlearn.pipeline.explain X --configfile config.yaml workflow/configs/tiny.yaml

- **A rule**: the file and line of its block (``rule NAME:`` in the Snakefile or workflow/rules/),
  the script the block runs and the featlearn function(s) it calls (a compute kind's ``compute``
  function, or the names the script imports from featlearn), its declaration (a job kind of
  ``featlearn.pipeline.jobs`` or a table/figure rule of ``featlearn.pipeline.result_rules``), its
  jobs in the config, the params of its first job with the config key each comes from, and that
  job's inputs with the rule that writes each.
- **A config key**: the rules whose jobs' params come from it (so editing it reruns them, and what
  is computed from them), the rules whose jobs it adds or removes (it lists their cells), and the
  tables and figures those rules write; or that no job reads it.
- **A results file**: the rule that writes it, and that rule's explanation.

Everything is read from the registries and the rule files' text, as the rules read them; the
tests check the answers against Snakemake's own DAG (tests/test_explain.py).
"""

import argparse
import ast
import re
import sys
from pathlib import Path

from featlearn.pipeline import checks, config_edits, jobs, kernels, result_rules
from featlearn.pipeline import settings as typed
from featlearn.pipeline.result_rules import figure_files, table

ROOT = Path(__file__).resolve().parents[3]
"""The checkout this package belongs to (its Snakefile, workflow/, src/)."""
RULE_FILES = ("Snakefile", "workflow/rules/*.smk")
"""Where every rule is declared, literally."""
FIXED_OUTPUTS = {
    "manuscript": r"results/paper/(numbers\.json|manuscript\.pdf|manuscript_page1\.png)",
    "model_kernel": r"results/\.kernels/\w+\.py",
    "model_numba_cache": r"results/\.numba_cache/\w+/\w+\.ready",
    "numba_cache": r"results/\.numba_cache/\w+\.ready",
}
"""Outputs of the rules that no registry declares (workflow/rules/data.smk and paper.smk), as
patterns; a numba cache marker of a follower program is numba_cache_link's (``kernels.kernel_leader``)."""
CODE_STAMP = r"results/\.code/.+\.sha256"
"""Code stamps: written while the workflow is parsed (``common.smk``'s ``code``), by no rule."""


def rule_blocks(root=ROOT):
    """{rule: [(file, line, script or None)]}: each ``rule NAME:`` block of :data:`RULE_FILES`, with
    the script it writes out, and each ``use rule A as NAME with:``, with A's script."""
    out, uses = {}, []
    for pattern in RULE_FILES:
        for path in sorted(Path(root).glob(pattern)):
            text, name = path.read_text(), path.relative_to(root)
            for match in re.finditer(r"^rule (\w+):\n((?:[ \t]+.*\n|\n)*)", text, re.M):
                script = re.search(r'^    script:\n\s+"\.\./scripts/(\w+\.py)"', match[2], re.M)
                line = text.count("\n", 0, match.start()) + 1
                out.setdefault(match[1], []).append((name, line, script and script[1]))
            for match in re.finditer(r"^use rule (\w+) as (\w+) with:", text, re.M):
                uses.append((match[1], match[2], name, text.count("\n", 0, match.start()) + 1))
    for parent, child, name, line in uses:
        out.setdefault(child, []).append((name, line, out[parent][0][2]))
    return out


def _declaration(rule):
    """The registry entry of ``rule`` (a ``jobs.Kind`` or ``result_rules.ResultRule``), or None."""
    return jobs.KIND.get(rule) or result_rules.RESULT_RULE.get(rule)


def _jobs(config, rule):
    """The wildcards of every job of ``rule`` in ``config`` (registry rules only)."""
    if rule in jobs.KIND:
        return jobs.KIND[rule].cells(config)
    if rule in result_rules.RESULT_RULE:
        return result_rules.RESULT_RULE[rule].jobs(config)
    return []


def param_origins(config, rule, w):
    """{param: (value, its config keys)} of the job of ``rule`` at ``w``: a compute job's settings
    field by field (``settings.<field>``) and its other params; a table or figure job's params."""
    if rule in jobs.KIND:
        kind = jobs.KIND[rule]
        s = kind.build(config, w)
        out = {f"settings.{name}": (getattr(s, name), s.origin.get(name)) for name in s.field_names()}
        for name in kind.param_names():
            out[name] = typed.resolve(config, name, kind.sources[name], dict(w))
    else:
        entry = result_rules.RESULT_RULE[rule]
        out = {name: typed.resolve(config, name, source, dict(w)) for name, source in entry.params.items()}
    return {name: (value, sorted(typed.origin_keys([origin]))) for name, (value, origin) in out.items()}


def _outputs(config, rule, w):
    """Every file the job of registry rule ``rule`` at ``w`` writes (tables, figures, others)."""
    if rule in jobs.KIND:
        return [jobs.KIND[rule].output(**w)]
    out = []
    for _, kind, file in result_rules.RESULT_RULE[rule].files(config):
        if file is None:
            continue
        path = file.format(**w) if "{" in file else file
        out += (
            figure_files(path)
            if kind == result_rules.F
            else [table(path) if kind == result_rules.T else path]
        )
    return out


def writer(config, path, root=ROOT):
    """The rule whose jobs write the results file ``path`` in ``config``'s build; "(code stamp)"
    for a code stamp; None if no rule does."""
    path = str(path).removeprefix("./")
    path = path if path.startswith("results/") else f"results/{path}"
    if re.fullmatch(CODE_STAMP, path):
        return "(code stamp)"
    for rule in (*jobs.KIND, *result_rules.RESULT_RULE):
        if any(path == o for w in _jobs(config, rule) for o in _outputs(config, rule, w)):
            return rule
    for rule, pattern in FIXED_OUTPUTS.items():
        if re.fullmatch(pattern, path):
            if rule == "numba_cache":
                program = Path(path).stem
                if program not in kernels.warmed_programs():
                    return None
                return (
                    "numba_cache" if kernels.kernel_leader(program, root) == program else "numba_cache_link"
                )
            return rule
    return None


def _script_functions(script):
    """The names a script imports from featlearn ("featlearn.module.name"), constants left out."""
    tree = ast.parse(Path(script).read_text())
    return [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("featlearn")
        for alias in node.names
        if not alias.name.isupper()
    ]


def explain_rule(config, rule, root=ROOT):
    """The explanation of ``rule`` (lines of text; see the module docstring)."""
    blocks = rule_blocks(root).get(rule)
    if not blocks:
        return [f"no rule {rule!r} in this checkout's Snakefile or workflow/rules/"]
    (file, line, script), *_ = blocks
    lines = [f"rule {rule}", f"  declared: {file}:{line}"]
    entry = _declaration(rule)
    if script:
        scripts = Path(root) / "workflow" / "scripts"
        runs = getattr(entry, "compute", "") or ", ".join(_script_functions(scripts / script)) or "-"
        lines.append(f"  runs: workflow/scripts/{script} -> {runs}")
    if entry is None:
        return lines + ["  parts: written in its block (no registry entry)"]
    where = "featlearn.pipeline.jobs (Kind)" if rule in jobs.KIND else "featlearn.pipeline.result_rules"
    cells = _jobs(config, rule)
    lines += [f"  parts from: {where}", f"  jobs in this config: {len(cells)}"]
    if not cells:
        return lines
    w = cells[0]
    lines.append(f"  first job: {', '.join(f'{k}={v}' for k, v in w.items()) or '(no wildcards)'}")
    params = param_origins(config, rule, w)
    lines.append("  params <- config keys:" + ("" if params else " (none)"))
    for name, (value, keys) in params.items():
        text = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        lines.append(f"    {name} = {text} <- {', '.join(keys) or '(none: fixed, or from the wildcards)'}")
    lines.append("  inputs <- the rules that write them:")
    for name, files in _inputs(config, rule, w).items():
        if not files:
            lines.append(f"    {name}: (none for this job)")
            continue
        rules = sorted({writer(config, f, root) or "?" for f in files})
        many = f"{len(files)} files, e.g. " if len(files) > 1 else ""
        lines.append(f"    {name}: {many}{files[0]} <- {', '.join(rules)}")
    return lines


def _inputs(config, rule, w):
    """{name: [files]} of the job's inputs: its code stamp, a compute job's numba cache (the plain
    one; a job whose activation or loss is a config entry reads its model kernel's), and the rest."""
    if rule in jobs.KIND:
        kind = jobs.KIND[rule]
        code = {"code": [f"results/.code/{kind.program}.sha256"]}
        cache = {"cache": [f"results/.numba_cache/{kind.program}.ready"]} if kind.warm else {}
        return {**cache, **code, **{name: [pattern.format(**w)] for name, pattern in kind.inputs}}
    entry = result_rules.RESULT_RULE[rule]
    got = entry.inputs(config, dict(w))
    got = {name: ([v] if isinstance(v, str) else list(v)) for name, v in got.items()}
    return {**got, "code": [f"results/.code/{entry.script}.sha256"]}


def key_readers(config, key):
    """({rule: jobs whose params come from ``key``}, {rule: jobs whose cells ``key`` lists}) in
    ``config``: a list-valued origin stands for its elements, and a key names all keys under it."""

    def reads(origins):
        return any(key == o or key.startswith(o + ".") or o.startswith(key + ".") for o in origins)

    params, cells = {}, {}
    for rule in (*jobs.KIND, *result_rules.RESULT_RULE):
        for w in _jobs(config, rule):
            origins = {k for _, keys in param_origins(config, rule, w).values() for k in keys}
            if reads(origins):
                params[rule] = params.get(rule, 0) + 1
            if rule in jobs.KIND and reads({jobs.KIND[rule].cells_from.format(**w)}):
                cells[rule] = cells.get(rule, 0) + 1
    return params, cells


def explain_key(config, key):
    """The explanation of config ``key`` (lines of text; see the module docstring)."""
    params, cells = key_readers(config, key)
    lines = [f"config key {key}"]
    if not params and not cells:
        return lines + [f"  {line}" for line in edit_effect(config, key)]
    for rule, count in params.items():
        lines.append(f"  params of {count} job(s) of {rule} come from it")
    for rule, count in cells.items():
        lines.append(f"  it lists the cells of {count} job(s) of {rule}: an edit adds or removes jobs")
    writes = set()
    for rule in {**params, **cells}:
        for o in _outputs(config, rule, _jobs(config, rule)[0]):
            if "/tables/" in o or ("/figures/" in o and o.endswith(".pdf")):
                writes.add(Path(o).name)
    if params:
        lines.append(f"  editing it reruns those jobs and what is computed from them ({', '.join(params)})")
    if writes:
        lines.append(f"  tables and figures of those rules: {', '.join(sorted(writes))}")
    return lines


def _rule_of(output):
    """The registry rule whose job writes ``output`` (a first output of ``config_edits``)."""
    for kind in jobs.KINDS:
        if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(kind.pattern("output"))), output):
            return kind.rule
    return "a table or figure rule"


def edit_effect(config, key):
    """What editing ``key``, which no job's params or cells come from, does: the jobs the edit adds
    or removes (a key that names files or picks inputs), else that it reruns nothing (a key read by
    the config check, by Snakemake's resources, or by nothing)."""
    if isinstance(config_edits.leaf(config, key), dict | list):
        return ["a section: see its keys (--keys)"]
    try:
        changed, _, added, removed = config_edits.param_changes(config, key)
    except (KeyError, ValueError, TypeError) as error:
        return [f"no job's params come from it; the registries cannot build the edited config ({error!r})"]
    rules = sorted({_rule_of(o) for o in changed | added | removed})
    if not rules:
        return [
            "no job's params or cells come from it: an edit reruns a job only where it names a file"
            " or picks an input (Snakemake follows those), else nothing"
        ]
    return [f"no job's params come from it, but an edit adds, removes or changes jobs of {', '.join(rules)}"]


def leaf_keys(config):
    """Every leaf key of ``config`` (dotted; list elements by index), as the config checks walk it."""
    return [key for key, _ in checks._walk(config)]


def unread_keys(config):
    """The leaf keys of ``config`` that no job's params or cells come from."""
    origins, listed = set(), set()
    for rule in (*jobs.KIND, *result_rules.RESULT_RULE):
        for w in _jobs(config, rule):
            origins |= {k for _, keys in param_origins(config, rule, w).values() for k in keys}
            if rule in jobs.KIND:
                listed.add(jobs.KIND[rule].cells_from.format(**w))
    known = origins | listed
    return [k for k in leaf_keys(config) if not any(k == o or k.startswith(o + ".") for o in known)]


def explain(config, target, root=ROOT):
    """The explanation of ``target``: a rule, a results file or a config key (in that order)."""
    if target in rule_blocks(root):
        return explain_rule(config, target, root)
    if "/" in target or target.endswith((".csv", ".tex", ".pdf", ".png", ".npz", ".json", ".yaml")):
        folder = "figures" if target.endswith((".pdf", ".png")) else "tables"
        rule = writer(config, target if "/" in target else f"results/{folder}/{target}", root)
        if rule is None or rule.startswith("("):
            return [f"{target}: written by {rule or 'no rule of this config'}"]
        return [f"{target}: written by rule {rule}", *explain_rule(config, rule, root)]
    try:
        config_edits.leaf(config, target)
    except (KeyError, IndexError, TypeError, ValueError):
        return [f"{target!r} is no rule, results file or config key of this build"]
    return explain_key(config, target)


def main(argv=None):
    """``python -m featlearn.pipeline.explain TARGET … [--configfile …] [--keys]``."""
    parser = argparse.ArgumentParser(
        prog="python -m featlearn.pipeline.explain", description=__doc__.split("\n")[0]
    )
    parser.add_argument("targets", nargs="*", help="rules, config keys (dotted) or results files")
    parser.add_argument("--configfile", nargs="+", type=Path, default=[ROOT / "config.yaml"])
    parser.add_argument("--keys", action="store_true", help="every leaf key of the config and who reads it")
    args = parser.parse_args(argv)
    config = config_edits.load_config(args.configfile)
    lines = []
    for target in args.targets:
        lines += explain(config, target) + [""]
    if args.keys:
        unread = set(unread_keys(config))
        for key in leaf_keys(config):
            if key in unread:
                lines.append(f"{key}: {edit_effect(config, key)[0]}")
            else:
                params, cells = key_readers(config, key)
                lines.append(f"{key}: {', '.join(sorted({*params, *cells}))}")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
