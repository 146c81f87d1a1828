"""``python -m featlearn.pipeline.explain``: its answers against Snakemake's own DAG, the rule files'
text and the config edits of the rerun tests."""

import json
import re
import subprocess
import sys

import pytest
from conftest import ROOT, TINY

from featlearn.pipeline import config_edits, explain
from featlearn.plan import load_config


@pytest.fixture(scope="module")
def tiny_dag(tmp_path_factory):
    """Every job of the tiny config's DAG, as Snakemake builds it (``tests/dag_dump.py``)."""
    out = tmp_path_factory.mktemp("dag") / "tiny.json"
    dump = [sys.executable, ROOT / "tests" / "dag_dump.py", out, "--configfile", TINY]
    subprocess.run(dump, cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())


def test_every_file_a_job_writes_is_explained_by_its_rule(tiny_dag):
    """For every output of every job Snakemake schedules in the tiny build, ``writer`` names the
    job's rule (registry rules by their declarations, the rules of data.smk and paper.smk by their
    patterns, a numba cache marker by its program's kernel leader)."""
    config = load_config([TINY])
    wrong = []
    for job in tiny_dag["jobs"]:
        for path in job["output"]["_"]:
            got = explain.writer(config, path)
            if got != job["rule"]:
                wrong.append((path, job["rule"], got))
    assert wrong == []
    assert len(tiny_dag["jobs"]) > 50


def test_a_rule_is_explained_at_its_block_with_its_script_params_and_inputs():
    """The explanation of a rule names the line ``grep -n "^rule NAME:"`` finds, the script its block
    runs and the function that script runs, every param with its config key and the rule of every
    input."""
    config = load_config([ROOT / "config.yaml"])
    text = "\n".join(explain.explain(config, "hessian_cell"))
    ((path, line, _),) = explain.rule_blocks()["hessian_cell"]
    assert (ROOT / path).read_text().splitlines()[line - 1] == "rule hessian_cell:"
    assert f"declared: {path}:{line}" in text
    assert "runs: workflow/scripts/run_compute.py -> featlearn.hessian.plateau.plateau_cell" in text
    assert "settings.grad_tol = 1e-05 <- hessian.grad_tol" in text
    assert "cache: results/.numba_cache/hessian_cell.ready <- numba_cache" in text
    table = "\n".join(explain.explain(config, "phase_figure"))
    assert "thresholds: results/tables/gelu_thresholds.csv <- aggregate_sweep" in table
    assert "theory: results/tables/theory_thresholds.csv <- theory_tables" in table
    assert "runs: workflow/scripts/plot_phase.py -> " in table


def test_a_key_is_explained_by_the_jobs_an_edit_of_it_changes():
    """The rules ``explain`` names as readers of a key are the rules whose jobs' params change when
    the key is edited (``config_edits.param_changes``, computed independently of the origins)."""
    config = load_config([ROOT / "config.yaml"])
    for key in ("hessian.grad_tol", "defaults.record_points", "escape.finite_n.samples", "claims.paper.gelu"):
        params, _ = explain.key_readers(config, key)
        changed, _, _, _ = config_edits.param_changes(config, key)
        rules = {explain.writer(config, o) for o in changed}
        assert set(params) == rules, key
    text = "\n".join(explain.explain(config, "hessian.grad_tol"))
    assert "params of 14 job(s) of hessian_cell come from it" in text
    assert explain.explain(config, "threads")[1].startswith("  no job's params or cells come from it")


def test_every_key_of_the_config_has_its_readers_or_says_none():
    """``--keys`` prints each leaf key of config.yaml once: its reading rules, or what an edit of
    it does when no job's params come from it."""
    out = subprocess.run(
        [sys.executable, "-m", "featlearn.pipeline.explain", "--keys"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    config = load_config([ROOT / "config.yaml"])
    keys = [line.split(": ", 1)[0] for line in out.splitlines() if line]
    assert keys == explain.leaf_keys(config)
    assert all(re.match(r"[\w.]+: \S", line) for line in out.splitlines() if line)


def test_a_results_file_is_explained_by_the_rule_that_writes_it():
    config = load_config([ROOT / "config.yaml"])
    text = explain.explain(config, "results/tables/thresholds.csv")
    assert text[0] == "results/tables/thresholds.csv: written by rule threshold_table"
    assert explain.explain(config, "fig4_phase_gelu.pdf")[0].endswith("written by rule phase_figure")
    assert "no rule, results file or config key" in explain.explain(config, "no.such.key")[0]


def test_every_rule_and_key_of_the_tiny_config_is_explained_without_a_crash():
    """Every rule of the rule files and every leaf key of the tiny config (list elements included)
    gets an explanation; a rule input that is empty for a job, a .tex table and a numba marker of
    no program are answered, not raised."""
    config = load_config([TINY])
    for target in [*explain.rule_blocks(), *explain.leaf_keys(config)]:
        assert "is no rule" not in explain.explain(config, target)[0], target
    assert explain.explain(config, "theory_thresholds.tex")[0].endswith("written by rule theory_tables")
    assert explain.writer(config, "results/.numba_cache/nope.ready") is None
