"""docs/extending.md, the worked example, applied to a copy of the workflow and built there.

The page's edits are read from the page itself (each code block after an ``<!-- example: … -->``
comment), so the page cannot drift from the code: if an anchor moves, a declaration changes shape
or the example stops building, this fails.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import job_counts, settings_reads

from featlearn.io.settings import READS_ENV
from featlearn.pipeline.deps import closure_digest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "extending.md"
EDIT = re.compile(
    r'<!-- example: (new|append|insert) (\S+)(?: (before|after) ("[^\n]*"))? -->\n```\w*\n(.*?)```', re.S
)


def example_edits(page=PAGE):
    """[(action, path, where, anchor, text)] of the page's example blocks, in page order."""
    return [
        (action, path, where, json.loads(anchor) if anchor else None, text)
        for action, path, where, anchor, text in EDIT.findall(page.read_text(encoding="utf-8"))
    ]


def apply_edit(root, action, path, where, anchor, text):
    """Apply one example block to the tree at ``root``: a new file, an appended block, or a block
    inserted before or after an anchor that occurs exactly once in the file."""
    target = root / path
    if action == "new":
        assert not target.exists(), f"{path} already exists"
        target.write_text(text, encoding="utf-8")
        return
    old = target.read_text(encoding="utf-8")
    if action == "append":
        target.write_text(old + ("" if old.endswith("\n") else "\n") + text, encoding="utf-8")
        return
    assert old.count(anchor) == 1, f"the anchor {anchor!r} occurs {old.count(anchor)} times in {path}"
    at = old.index(anchor) + (len(anchor) if where == "after" else 0)
    target.write_text(old[:at] + text + old[at:], encoding="utf-8")


def files_touched(edits):
    return sorted({path for _, path, *_ in edits})


def test_the_page_lists_exactly_the_files_its_example_touches():
    edits, page = example_edits(), PAGE.read_text(encoding="utf-8")
    listed = re.findall(r"^\| \d+ \| `([^`]+)`", page, re.M)
    assert sorted(listed) == files_touched(edits)
    assert f"That is {len(listed)} files, {sum(a == 'new' for a, *_ in edits)} of them new." in page


def test_every_anchor_of_the_example_occurs_once():
    for action, path, _, anchor, _ in example_edits():
        assert (ROOT / path).exists() != (action == "new"), path
        if anchor is not None:
            assert (ROOT / path).read_text(encoding="utf-8").count(anchor) == 1, (path, anchor)


@pytest.fixture(scope="module")
def extended(tmp_path_factory):
    """A copy of the tracked tree with the page's example applied."""
    root = tmp_path_factory.mktemp("extended")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        if (ROOT / name).is_file():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, root / name)
    for edit in example_edits():
        apply_edit(root, *edit)
    return root


def _run(root, *args, timeout=900):
    env = {**os.environ, "PYTHONPATH": str(root / "src")}
    out = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    return out.stdout


def test_the_example_changes_the_code_of_no_job_already_declared(extended):
    """Adding the experiment reruns no compute, table or figure job already built: every script that
    was there runs the same code in the extended copy (the same code stamp, ``deps.closure_digest``);
    only its new scripts are new code.  (The manuscript reruns: its index lists the new table.)"""
    changed = [
        script.name
        for script in sorted((ROOT / "workflow" / "scripts").glob("*.py"))
        if closure_digest(extended / "workflow" / "scripts" / script.name, extended / "src" / "featlearn")
        != closure_digest(script, ROOT / "src" / "featlearn")
    ]
    assert not changed


def test_the_new_figure_is_listed_without_a_readme_edit(extended):
    """The README lists the paper's figures, so the example leaves it as it was and its check still
    passes (run in the copy below); the manifest's listing of every figure names the new one."""
    assert (extended / "README.md").read_text() == (ROOT / "README.md").read_text()
    listing = _run(extended, sys.executable, "-m", "featlearn.pipeline.manifest", "config.yaml")
    assert "| `extra_budget_overlap` | (added) | `budget_table` |" in listing


@pytest.mark.builds
def test_the_worked_example_builds_and_passes_the_workflow_checks(extended):
    """The example's table and figure build from the new kind's cells; the copy passes the manifest,
    README, script, rule-name, code-input and key-by-key rerun checks of the default config, and
    Snakemake's lint."""
    targets = ["results/tables/budget_overlap.csv", "results/figures/extra_budget_overlap.pdf"]
    _run(extended, sys.executable, "-m", "snakemake", "--cores", "2", *targets)
    rows = (extended / targets[0]).read_text().splitlines()
    assert rows[0].startswith("d,delta,trials,rho_mean,rho_se,loss_mean")
    assert len(rows) == 1 + 4  # one row per delta of the page's section
    assert (extended / "results/figures/extra_budget_overlap.png").stat().st_size > 0
    _run(extended, sys.executable, "-m", "snakemake", "--lint")
    checks = [
        "tests/test_manifest.py",
        "tests/test_pipeline.py::test_readme_figure_table_is_the_manifest",
        "tests/test_workflow.py::test_every_rule_runs_the_script_it_declares",
        "tests/test_workflow.py::test_every_rule_has_one_literal_block_which_its_registry_entry_agrees_with",
        # the kind's program: its code stamp's modules are those it loads (its function's among them)
        "tests/test_workflow.py::test_derived_code_inputs_are_the_modules_the_program_imports[budget_cell]",
        "tests/test_reruns.py::test_an_edit_changes_the_params_of_exactly_the_jobs_that_read_the_key[config.yaml]",
    ]
    _run(extended, sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *checks)
    # the kind names its function: its code stamp is its own and covers that function's module, so
    # editing the module reruns its cells (through their stamp and the link to the shared kernel
    # cache, which the stamp also feeds) and the table that imports it, and re-warms no kernel
    assert (extended / "results/.code/budget_cell.sha256").is_file()
    module = extended / "src/featlearn/cells/budget.py"
    module.write_text(module.read_text() + "# edited\n")
    dry = job_counts(_run(extended, sys.executable, "-m", "snakemake", "-n", *targets))
    assert dry == {"numba_cache_link": 1, "budget_cell": 4, "budget_table": 1}, dry
    # read tracking on the tiny config the page extends (step 8): the cells read every settings field
    reads = extended / "tiny_reads.jsonl"
    tiny = ["--configfile", "workflow/configs/tiny.yaml"]  # its budget cells are others (d = 30)
    env = {**os.environ, "PYTHONPATH": str(extended / "src"), READS_ENV: str(reads)}
    built = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", targets[0], *tiny],
        cwd=extended, env=env, capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    recorded = settings_reads(reads)  # only the budget cells ran (and read settings) here
    assert recorded and all(fields <= read for fields, read in recorded.values()), recorded
