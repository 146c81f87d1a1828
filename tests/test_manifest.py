"""The table manifest (``featlearn.pipeline.manifest.TABLES``): it drives the build's targets, the
results index and the claims' inputs, so every table it names must be one a build writes, and every
table a build writes must be in it."""

import ast
import copy
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from featlearn.pipeline import checks, manifest, result_rules

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "workflow" / "configs" / "tiny.yaml"


def dag_tables(*configfiles):
    """The file names under results/tables/ of every output of a fresh build of ``configfiles``
    (Snakemake's ``--summary`` of the whole DAG)."""
    args = ["--configfile", *map(str, configfiles)] if configfiles else []
    proc = subprocess.run(
        ["snakemake", "--cores", "1", "--nolock", "--summary", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    outputs = [line.split("\t")[0] for line in proc.stdout.splitlines()[1:] if "\t" in line]
    return {Path(o).name for o in outputs if o.startswith("results/tables/")}


@pytest.mark.parametrize("configfiles", [(), (TINY,)], ids=["config.yaml", "tiny.yaml"])
def test_the_manifest_names_exactly_the_tables_a_build_writes(configfiles):
    config = yaml.safe_load((configfiles[0] if configfiles else ROOT / "config.yaml").read_text())
    named = {name for _, names in manifest.tables(config) for name in names}
    assert named == dag_tables(*configfiles)


def test_an_optional_section_adds_its_tables_and_only_then():
    config = yaml.safe_load(TINY.read_text())
    without = {name for _, names in manifest.tables(config) for name in names}
    assert not {"conventions.csv", "design.csv", "delta50_two_stage.csv"} & without
    config["conventions"] = {"any": "section"}
    config["escape"]["two_stage"] = {"models": {}}
    added = {name for _, names in manifest.tables(config) for name in names} - without
    assert added == {"conventions.csv", "convention_scans.csv", "escape_two_stage.csv"} | {
        "delta50_two_stage.csv",
        "escape_two_stage_scans.csv",
    }
    assert {"conventions.csv", "delta50_two_stage.csv"} <= set(manifest.target_tables(config))


def test_each_table_has_its_own_caption():
    """theory_thresholds.csv is not a sweep's logistic fits, each sweep's table takes its pattern's
    caption, a figure its own, and an unknown file is an error naming the fix."""
    config = yaml.safe_load(TINY.read_text())
    fits = next(t.caption for t in manifest.TABLES if t.name == "{sweep}_thresholds.csv")
    assert manifest.caption_of(config, "results/tables/theory_thresholds.csv") != fits
    assert {manifest.caption_of(config, f"{s}_thresholds.csv") for s in config["sweeps"]} == {fits}
    assert len({t.caption for t in manifest.TABLES}) == len(manifest.TABLES)
    stem = config["landscape"]["stem"]
    assert manifest.caption_of(config, f"results/figures/{stem}.png").startswith("The empirical risk")
    with pytest.raises(KeyError, match="declare it in the rule that writes it"):
        manifest.caption_of(config, "nosuch.csv")


def test_the_claims_read_their_sweeps_by_role_key_not_by_the_paper_label():
    config = yaml.safe_load(TINY.read_text())
    config["claims"]["sweeps"]["gelu"] = "quad"
    for spec in config["sweeps"].values():
        spec.pop("paper", None)
    assert result_rules.claim_roles(config)["gelu"] == "quad"
    assert "quad_cells.csv" in result_rules.claim_tables(config)
    assert "gelu_cells.csv" not in result_rules.claim_tables(config)
    bad = copy.deepcopy(config)
    bad["claims"]["sweeps"]["quad"] = "nosuch"
    with pytest.raises(checks.ConfigError, match="claims.sweeps.quad"):
        checks.check_config(bad)


def test_a_table_name_and_a_figure_stem_are_written_once():
    """Tables and figures come from the rules' ``tables`` and ``figures`` alone: no rule lists one
    among its other outputs, no two tables share a name, and a rule that does not draw one figure per
    job has at most one (its output ``figure``)."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    names = [t.name for t in manifest.TABLES]
    assert len(set(names)) == len(names)
    for rule in result_rules.RESULT_RULES:
        assert all(out[1] == "file" or out == result_rules.PER_STEM for out in rule.outputs), rule.rule
        if result_rules.PER_STEM not in rule.outputs:
            assert len(rule.figures) <= 1, rule.rule
            figure = [file for name, kind, file in rule.files(config) if kind == "figure" and file]
            assert figure == [s for f in rule.figures for s in f.stems(config)], rule.rule


def _code_strings(path):
    """The string constants of a Python file's code (f-string parts included), docstrings left out."""
    tree = ast.parse(path.read_text())
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


def test_every_fixed_table_name_is_written_once():
    """A results table's file name is written in ``featlearn.io.table_names`` only: its declaration,
    the rules that read it, the claims and the manuscript's numbers all use the constant (no string
    of the code in src/ or workflow/scripts/, and no rule file, spells it again)."""
    from featlearn.io import table_names

    names = [v for k, v in vars(table_names).items() if k.isupper()]
    assert len(names) >= 30
    own = ROOT / "src" / "featlearn" / "io" / "table_names.py"
    spelt = []
    for path in [*(ROOT / "src").rglob("*.py"), *(ROOT / "workflow" / "scripts").glob("*.py")]:
        if path != own:
            spelt += [(path.name, n) for s in _code_strings(path) for n in names if re.search(rf"\b{n}\b", s)]
    for path in [ROOT / "Snakefile", *(ROOT / "workflow" / "rules").glob("*.smk")]:
        spelt += [(path.name, n) for n in names if re.search(rf"\b{re.escape(n)}\b", path.read_text())]
    assert spelt == []
