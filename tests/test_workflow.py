"""Workflow tests: schema errors, dry-run of the whole DAG, a tiny end-to-end run, and reruns."""

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from conftest import ROOT, SCHEMA, TINY, concurrently, job_counts, selected_params, settings_reads, snakemake
from tiny_build import READS, copy_workflow

from featlearn.io.settings import READS_ENV
from featlearn.pipeline import checks, manifest
from featlearn.pipeline.explain import rule_blocks
from featlearn.plan import load_config


def test_dry_run_of_the_default_dag_loads_no_numba(tmp_path):
    """The whole default DAG, planned by a master process that finds first on its path a numba that
    fails on import: the Snakefile, the rules and every module they import never load numba."""
    fake = tmp_path / "numba"
    fake.mkdir()
    (fake / "__init__.py").write_text("raise ImportError('the Snakemake master imported numba')\n")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    proc = snakemake(ROOT, "-n", "--forceall", env={**os.environ, "PYTHONPATH": path})
    counts = job_counts(proc.stdout)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    cells = sum(len(s["d"]) * len(s["delta"]) for s in config["sweeps"].values())
    assert counts["sweep_block"] == cells
    assert counts["phase_figure"] == len(config["sweeps"])
    assert counts["grokking_figure"] == counts["grokking_run"] == len(config["grokking"])


def test_lint_is_clean():
    proc = subprocess.run(["snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr


def test_the_rule_files_import_only_the_workflow_layer():
    """The Snakefile and the .smk files, which import-linter does not read, import from featlearn only
    ``featlearn.pipeline`` (the forbidden contract in pyproject.toml keeps it free of numba and the
    numerics), so the layering holds for the Snakemake master's whole import graph."""
    files = [ROOT / "Snakefile", *sorted((ROOT / "workflow" / "rules").glob("*.smk"))]
    imports = [
        (path.name, module)
        for path in files
        for module in re.findall(r"^\s*(?:from|import)\s+(featlearn[\w.]*)", path.read_text(), re.M)
    ]
    assert imports, "the rule files import nothing from featlearn: the pattern is stale"
    assert [(name, m) for name, m in imports if not m.startswith("featlearn.pipeline")] == []


CONVENTIONS_TINY = {
    "conventions": {
        "d": [40],
        "trials": 2,
        "activations": ["gelu", "quad"],
        "coarse": {"gelu": [3.0, 12.0], "quad": [2.0, 8.0]},
        "refine": [0.9, 1.1],
        "plateau": {"activation": "gelu", "d": 40, "delta": 6.0, "steps": 50},
        "paper": {"gelu": 6.0, "quad": 3.6, "plateau": 0.6},
        "tolerance": {"gelu": 0.3, "quad": 0.2, "plateau": 0.05},
        "grid": {"centred": {}, "square_relative": {"link": "square", "loss_normalisation": "second_moment"}},
    }
}


BAD_CONFIGS = {
    "wrong type": ({"sweeps": {"gelu": {"trials": "many"}}}, "sweeps.gelu.trials"),
    "unknown activation": ({"sweeps": {"gelu": {"activation": "softplus"}}}, "sweeps.gelu.activation"),
    "misspelt config activation": (
        {"activations": {"swish": "z/(1 + exp(-z))"}, "sweeps": {"gelu": {"activation": "swsh"}}},
        "sweeps.gelu.activation",
    ),
    "bad config activation expression": ({"activations": {"swish": "z/(1 + exq(-z))"}}, "activations.swish"),
    "config activation with a built-in name": ({"activations": {"gelu": "z"}}, "activations.gelu"),
    "config activation name that is no name": ({"activations": {"2swish": "z"}}, "activations"),
    "learning rate of an unknown activation": ({"learning_rate": {"swsh": 1.0}}, "learning_rate.swsh"),
    "non-positive delta": ({"sweeps": {"quad": {"delta": [2.0, 0.0]}}}, "sweeps.quad.delta.1"),
    "unknown key": ({"defaults": {"learning_rat": 1.0}}, "defaults"),
    "theory step beyond the horizon": ({"theory": {"report_steps": [2, 500]}}, "theory.report_steps"),
    "theory model for m > 1": ({"theory": {"models": {"quad": {"m": 2}}}}, "theory.models.quad.m"),
    "yaml float written as string": (
        {"grokking": {"fig2_grokking_gelu": {"delta": "1e1"}}},
        "grokking.fig2_grokking_gelu.delta",
    ),
    "NaN delta": ({"sweeps": {"quad": {"delta": [3.0, float("nan")]}}}, "sweeps.quad.delta.1"),
    "infinite tolerance": ({"hessian": {"grad_tol": float("inf")}}, "hessian.grad_tol"),
    "unknown sweep in a width group": (
        {"width": {"groups": {"gelu": ["gelu", "gelu_m3"]}}},
        "width.groups.gelu.1",
    ),
    "unknown sweep in figure1": ({"figure1": {"random": "gelu_rnd"}}, "figure1.random"),
    "unknown easy_hard sweep": ({"easy_hard": {"sweep": "nope"}}, "easy_hard.sweep"),
    "duplicate figure stems": ({"sweeps": {"quad": {"figure": "fig4_phase_gelu"}}}, "sweeps"),
    "referee delta off the model grid": (
        {"theory": {"simulation": {"delta": {"quad": [4.5]}}}},
        "theory.simulation.delta.quad.0",
    ),
    "unknown theory model key": (
        {"theory": {"models": {"quad": {"dtype": "float32"}}}},
        "theory.models.quad",
    ),
    "loss normalisation the Hessian cells ignore": (
        {"defaults": {"loss_normalisation": "variance"}},
        "defaults.loss_normalisation",
    ),
    "spectral init of a theory model": ({"defaults": {"init": "spectral"}}, "defaults.init"),
    "prediction of a sweep that trains another model": (
        {"escape": {"prediction": {"models": {"gelu_bump": {"sweep": "gelu", "delta": [6.0, 9.0]}}}}},
        "escape.prediction.models.gelu_bump.sweep",
    ),
    "prediction of an unknown theory model": (
        {"escape": {"prediction": {"models": {"relu": {"sweep": "gelu", "delta": [6.0, 9.0]}}}}},
        "escape.prediction.models.relu",
    ),
    "convention name with a dot (a dotted config key would not find it)": (
        {"conventions": {**CONVENTIONS_TINY["conventions"], "grid": {"sq0.5": {"a": 2.0}}}},
        "conventions.grid",
    ),
    "unknown convention key": (
        {"conventions": {**CONVENTIONS_TINY["conventions"], "grid": {"fast": {"eta": 2.0}}}},
        "conventions.grid.fast",
    ),
    "out-of-range success level": ({"defaults": {"success_rho": 1.5}}, "defaults.success_rho"),
    "noisy theory model for the noiseless fixed point": (
        {"theory": {"models": {"quad": {"noise": 0.1}}}},
        "theory.models.quad.noise",
    ),
    "delta_at a d the sweep does not run": (
        {"sweeps": {"quad": {"delta_at": {2000: [4.0, 4.5]}}}},
        "sweeps.quad.delta_at.2000",
    ),
    "histogram delta not in the grid": (
        {"hessian": {"histogram": {"quad": [4.0, 15.0]}}},
        "hessian.histogram.quad.1",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_fails_naming_the_key(tmp_path, case):
    """The check the Snakefile runs before any job (the schema, then ``checks.check_config``) on
    config.yaml with the case's overlay, merged as Snakemake merges ``--configfile``s; that Snakemake
    turns such an error into one line before any job is tested below (a schema error: a missing
    key; a check's: a cell that cannot fit, and tests/test_user_activation.py)."""
    overlay, key = BAD_CONFIGS[case]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(overlay))
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(load_config([ROOT / "config.yaml", bad]), schema=SCHEMA)
    assert error.value.key == key, str(error.value)


def test_a_cell_that_cannot_fit_in_memory_fails_before_any_job():
    proc = snakemake(ROOT, "-n", "--resources", "mem_mb=500", check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "config error at" in ln]
    assert len(lines) == 1 and "more than the 500 MB available" in lines[0], proc.stderr[-2000:]


def test_missing_key_fails_naming_it(tmp_path):
    wd = copy_workflow(tmp_path)
    config = yaml.safe_load((wd / "config.yaml").read_text())
    del config["defaults"]["n_test"]
    (wd / "config.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(wd, "-n", check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "config error at" in ln]
    assert len(lines) == 1 and "config error at 'defaults': 'n_test' is a required property" in lines[0]
    assert "Job stats" not in proc.stdout


def test_every_settings_field_is_read(tiny_run):
    """Each kind of job reads every field of its settings (``params.settings``): a field it never
    read would rerun it for an edit that cannot change its result.  The union over the jobs of a
    kind counts (a field may be read only on some branch, e.g. the spectral init)."""
    reads = settings_reads(tiny_run / READS)
    assert len(reads) >= 11  # the kinds of the tiny build (Fig 3 shares the Hessian cells' settings)
    unread = {cls: sorted(fields - read) for cls, (fields, read) in reads.items() if fields - read}
    assert not unread, unread


def test_tiny_end_to_end(tiny_run):
    results = tiny_run / "results"
    stems = (
        "fig1_spectral_vs_random",
        "fig2_grokking_gelu",
        "fig4_phase_gelu",
        "fig5_phase_quad",
        "extra_phase_gelu_spectral",
        "fig7_hessian_spectrum",
        "fig8_hessian_vs_delta",
        "extra_hessian_trajectory",
        "extra_escape_steps",
        "fig6_width",
        "fig11_easy_hard",
        "fig9_dmft_vs_simulation",
        "fig10a_outlier_vs_time",
        "fig10b_delta_nn",
    )
    for stem in stems:
        for ext in ("pdf", "png"):
            assert (results / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    made = {p.stem for p in (results / "figures").glob("*.pdf")}
    assert made == {f.stem for f in manifest.figures(yaml.safe_load(TINY.read_text()))}
    table = (results / "tables" / "thresholds.csv").read_text().splitlines()
    assert table[0].startswith("kind,sweep,activation,link,m,init,d,")
    assert sum(row.startswith("delta50") for row in table) == 6  # one per (sweep, d), easy_hard excluded
    assert sum(row.startswith("delta_alg") for row in table) == 4  # one per single-index link
    theory = (results / "tables" / "theory_thresholds.csv").read_text().splitlines()
    assert theory[0].startswith(
        "model,activation,link,lr,n_paths,delta_alg,replicas,delta_nn_t2,delta_nn_t2_se,"
    )
    assert len(theory) == 3  # one row per theory model
    assert "\\begin{tabular}" in (results / "tables" / "theory_thresholds.tex").read_text()
    logs = list((results / "logs").rglob("*.log"))
    jobs = sum(job_counts(snakemake(tiny_run, "-n", "--forceall").stdout).values()) - 1  # 'all' has no log
    assert len(logs) == jobs and all(log.stat().st_size > 0 for log in logs)
    nothing = snakemake(tiny_run, "-n")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr


def test_tiny_builds_the_manuscript_and_the_report(tiny_run, tmp_path):
    from featlearn.analysis.claims import VERDICTS

    paper = tiny_run / "results" / "paper"
    assert (paper / "manuscript.pdf").read_bytes()[:5] == b"%PDF-"
    assert (paper / "manuscript_page1.png").read_bytes()[:4] == b"\x89PNG"
    claims = (tiny_run / "results" / "tables" / "claims.csv").read_text().splitlines()
    assert len(claims) > 10 and all(any(v in row for v in VERDICTS) for row in claims[1:])
    snakemake(tiny_run, "--report", str(tmp_path / "report.zip"))  # outside results/: the fixture is shared
    import zipfile

    names = zipfile.ZipFile(tmp_path / "report.zip").namelist()
    assert any(n.endswith("report.html") for n in names)
    assert any(n.endswith("fig4_phase_gelu.png") for n in names) and any(
        n.endswith("claims.csv") for n in names
    )


def layout_query(root, source, label):
    """The values of the metadata ``label`` that typst's layout of ``source`` records."""
    import typst

    plain = {"numbers": "/results/paper/numbers.json"}
    return json.loads(typst.query(str(source), label, field="value", root=str(root), sys_inputs=plain))


def figure_sizes(root, source):
    """Each manuscript figure's natural and printed size (pt), as typst lays out the pages
    (the ``<figure-size>`` metadata of the source's ``fig``)."""
    return layout_query(root, source, "<figure-size>")


@contextlib.contextmanager
def figure_replaced(tiny_run, stem, fig):
    """The tiny build's figure ``stem`` (PDF, which the manuscript places, and PNG, which records its
    text) replaced by ``fig`` for the block, then restored with its times (Snakemake sees it
    untouched)."""
    from featlearn.plotting import figures

    paths = [tiny_run / "results" / "figures" / f"{stem}.{ext}" for ext in ("pdf", "png")]
    saved = [(path, path.read_bytes(), path.stat()) for path in paths]
    try:
        figures.save(fig, paths)
        yield
    finally:
        for path, data, stat in saved:
            path.write_bytes(data)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def test_every_figure_of_the_manuscript_prints_its_text_at_7_pt_or_more(tiny_run):
    """The print-size check (featlearn.plotting.print_size, (P1)): every figure the tiny build's
    manuscript places prints its smallest drawn text (legends, ticks, labels, titles, notes) at
    MIN_PRINTED_PT or more, at the width typst prints it; the figures are drawn at the text width
    typst reports.  It can fail: the tiny build's Fig 12 as drawn before 2026-12-07 (one 4.6-in
    column of three panels, 9.6 in tall, legends at 7 pt), which the page's height cap prints at
    about 80 % of its size (5.5 pt)."""
    import matplotlib.pyplot as plt

    from featlearn.plotting import print_size

    def smallest(sizes):
        out = {}
        for s in sizes:
            png = tiny_run / "results" / "figures" / f"{s['stem']}.png"
            out[s["stem"]] = print_size.printed_text(png, s["width"])
        return out

    sizes = figure_sizes(tiny_run, tiny_run / "paper" / "manuscript.typ")
    assert len(sizes) >= 10
    assert all(abs(s["text_width"] - 72 * print_size.TEXT_WIDTH_IN) < 0.02 * s["text_width"] for s in sizes)
    small = {stem: v for stem, v in smallest(sizes).items() if v[0] < print_size.MIN_PRINTED_PT}
    assert small == {}, small
    fig, axes = plt.subplots(3, 1, figsize=(4.6, 9.6))
    for ax in axes.flat:
        ax.plot([1, 2], [1, 2], label="d=1000")
        ax.legend(fontsize=7)
    with figure_replaced(tiny_run, "extra_escape_prediction", fig):
        old = smallest(figure_sizes(tiny_run, tiny_run / "paper" / "manuscript.typ"))
    assert [stem for stem, v in old.items() if v[0] < print_size.MIN_PRINTED_PT] == [
        "extra_escape_prediction"
    ]


def test_every_table_of_the_manuscript_keeps_its_header_and_short_tables_whole(tiny_run):
    """Every table of the tiny build's manuscript (paper/layout.typ's ``rtable``) starts its rows on
    the page of its header, and one of at most ``short-table-rows`` rows ends on that page too
    (``check_tables``)."""
    parts = layout_query(tiny_run, tiny_run / "paper" / "manuscript.typ", "<table-part>")
    assert check_tables(parts) == []
    assert len({p["table"] for p in parts}) >= 8


def check_tables(parts):
    """What is wrong with the tables laid out as ``parts`` (the ``<table-part>`` metadata of
    paper/layout.typ): a header on an earlier page than its first row, a short table (the layout's
    own judgement: few rows, and room to spare on a page) over more than one page."""
    tables, wrong = {}, []
    for p in parts:
        tables.setdefault(p["table"], {}).setdefault(p["part"], []).append(p)
    for number, table in tables.items():
        header = min(table["header"], key=lambda p: p["page"])
        if "first" not in table:
            continue  # no rows
        first, last = table["first"][0]["page"], table["last"][0]["page"]
        if header["page"] != first:
            wrong.append((number, "header alone", header["page"], first))
        if header["short"] and last != first:
            wrong.append((number, "short table broken", first, last))
    return wrong


def test_the_table_check_finds_an_orphaned_header_and_a_broken_short_table(tmp_path):
    """The table layout (paper/layout.typ's ``rtable``) against a plain typst table with the same
    marks, each placed low on an A4 page: the plain table leaves its header alone at the page's foot
    (a 60-row table) and breaks a 10-row table; ``rtable`` does neither."""
    import typst

    shutil.copy(ROOT / "paper" / "layout.typ", tmp_path / "layout.typ")
    plain = """#let plain(columns: 1, header: (), cells) = {
  table-count.step()
  let marked = (part("first", cells.at(0)), ..cells.slice(1, -2), part("last", cells.at(-2)), cells.at(-1))
  table(columns: columns, part("header", header.at(0), short: cells.len() <= 30), header.at(1), ..marked)
}"""
    found = {}
    for maker in ("rtable", "plain"):
        for rows, space in ((60, 24.4), (10, 22.0)):
            (tmp_path / "t.typ").write_text(
                f'#import "layout.typ": *\n#set page(paper: "a4", margin: 2.2cm)\n{plain}\n#v({space}cm)\n'
                f"#{maker}(columns: 2, header: ([a], [b]), range({rows}).map(i => ([#i], [x])).flatten())\n"
            )
            parts = json.loads(
                typst.query(str(tmp_path / "t.typ"), "<table-part>", field="value", root=str(tmp_path))
            )
            found[maker, rows] = [w[1] for w in check_tables(parts)]
    assert found == {
        ("rtable", 60): [],
        ("rtable", 10): [],
        ("plain", 60): ["header alone"],
        ("plain", 10): ["short table broken"],
    }


def test_every_figure_of_the_manuscript_fits_its_page(tiny_run, tmp_path):
    """The page check: every figure the tiny build's manuscript places is printed within the text
    width and within the height that leaves room for its caption; a figure whose natural height at
    the text width is larger (Fig 12 of the default build, 32.6 cm) is printed at that height.  The
    same source without the height rule (the fig of 2026-12-06) fails the check on a figure made tall."""
    sizes = figure_sizes(tiny_run, tiny_run / "paper" / "manuscript.typ")
    assert len(sizes) >= 10
    for s in sizes:
        assert s["width"] <= s["text_width"] + 0.5 and s["height"] <= s["max_height"] + 0.5, s
    # the check can fail: the plain rule (width 100 % always) on a figure twice as tall as the page
    source = (tiny_run / "paper" / "manuscript.typ").read_text()
    plain = source.replace("if natural.height > fig-max-height", "if false")
    assert plain != source
    tall = tiny_run / "paper" / "tall_check.typ"  # beside layout.typ, inside typst's root; removed again
    tall.write_text(plain)
    import matplotlib.pyplot as plt

    try:
        with figure_replaced(tiny_run, "extra_escape_prediction", plt.figure(figsize=(4, 16))):
            overflowing = [s for s in figure_sizes(tiny_run, tall) if s["height"] > s["max_height"]]
    finally:
        tall.unlink()
    assert [s["stem"] for s in overflowing] == ["extra_escape_prediction"]


@pytest.mark.slow
def test_the_refinement_overlay_is_built_on_request_and_keeps_every_cell(tiny_run):
    """``results/finite_size/refine.yaml`` (F8) is no target of a build; on request it holds, per
    finite-size sweep and d, the δ already run and any new ones, and a build given it schedules
    new sweep blocks only (every completed block is kept)."""
    config = yaml.safe_load((tiny_run / "config.yaml").read_text())
    overlay_path = tiny_run / "results" / "finite_size" / "refine.yaml"
    log = tiny_run / "results" / "logs" / "finite_size" / "refine.log"
    assert not overlay_path.exists() and not log.exists()
    try:  # the tree is the session's: what the request writes is removed again
        snakemake(tiny_run, "results/finite_size/refine.yaml")
        overlay = yaml.safe_load(overlay_path.read_text())["sweeps"]
        sweeps = {spec["sweep"] for spec in config["finite_size"]["models"].values()}
        assert set(overlay) == sweeps
        for sweep, spec in overlay.items():
            assert set(spec["delta_at"]) == set(config["sweeps"][sweep]["d"])
            for deltas in spec["delta_at"].values():
                assert set(config["sweeps"][sweep]["delta"]) <= set(deltas)
        plan = snakemake(tiny_run, "-n", "--configfile", "config.yaml", str(overlay_path))
        reasons = re.findall(r"GD sweep [^\n]*\nReason: ([^\n]*)", plan.stdout)
        assert all(reason.startswith("Missing output files") for reason in reasons), reasons
    finally:
        overlay_path.unlink(missing_ok=True)
        log.unlink(missing_ok=True)


def test_the_manuscript_gains_the_design_appendix_with_the_designer(tiny_run, tmp_path):
    """With a design table (the designer overlay), the manuscript compiles with its appendix and
    the appendix names the best design; without one (the tiny build) it has none."""
    import typst

    from featlearn.analysis.manuscript_numbers import design_numbers

    rows = [
        {"design": name, "activation": act, "b": 0.0, "r0": 1.0, "delta_nn_inf": inf, "at_stable": True}
        | {"delta_nn_min": low, "delta_nn_min_se": 0.1, "theory_rank": rank, "spearman_d": 60}
        | {"delta50_d60": d50, "delta50_d60_err": 0.2, "spearman_rho": 1.0, "spearman_designs": 2}
        | {"long_time_status": status, "train": train}
        for name, act, inf, low, rank, d50, status, train in [
            ("bestdesign", "quad", 6.6, 4.1, 1, 4.0, "ok", "theta"),
            ("gelu", "gelu", 9.5, 6.2, 2, float("nan"), "ok", "theta"),
            ("gelu_ab", "gelu", float("nan"), 6.0, 3, 5.0, "trained_layer", "theta,a,b"),
        ]
    ]
    numbers = json.loads((tiny_run / "results" / "paper" / "numbers.json").read_text())
    assert numbers["design"] is None
    numbers["design"] = design_numbers(rows, "extra_design")
    assert [r["delta_nn_inf"] for r in numbers["design"]["rows"]] == ["6.6", "9.5", "none (trains a, b)"]
    design_path = tiny_run / "design_numbers.json"  # inside typst's root; removed again (a shared tree)
    design_path.write_text(json.dumps(numbers))
    source, pdf = str(tiny_run / "paper" / "manuscript.typ"), tmp_path / "manuscript.pdf"
    inputs = {"numbers": "/design_numbers.json"}
    try:
        typst.compile(source, output=str(pdf), root=str(tiny_run), sys_inputs=inputs)
        labels = json.loads(
            typst.query(source, "<design>", field="label", root=str(tiny_run), sys_inputs=inputs)
        )
    finally:
        design_path.unlink()
    assert pdf.read_bytes()[:5] == b"%PDF-"
    assert labels == ["<design>"]
    plain = {"numbers": "/results/paper/numbers.json"}
    assert (
        json.loads(typst.query(source, "<design>", field="label", root=str(tiny_run), sys_inputs=plain)) == []
    )


def test_tiny_prediction_tables_name_predicted_and_empirical(tiny_run):
    rows = (tiny_run / "results" / "tables" / "delta50_prediction.csv").read_text().splitlines()
    head = rows[0].split(",")
    assert {
        "activation",
        "link",
        "d",
        "delta50_predicted",
        "delta50_empirical",
        "delta50_empirical_err",
    } <= set(head)
    assert len(rows) == 1 + 2  # the tiny prediction: one model, d ∈ {60, 1000}, one ρ_c


TWO_STAGE_TINY = {
    "escape": {
        "two_stage": {
            "horizon": 8,
            "n_paths": 400,
            "samples": 500,
            "t0": [2],
            "m0": [0.05, 0.2, 0.8],
            "models": {"gelu_bump": {"sweep": "gelu_bump", "delta": [6.0, 12.0]}},
        }
    }
}


@pytest.mark.builds
def test_the_two_stage_overlay_builds_its_tables_and_the_default_target_has_none_of_it(tmp_path):
    wd = copy_workflow(tmp_path, TINY)
    overlay = tmp_path / "two_stage.yaml"
    overlay.write_text(yaml.safe_dump(TWO_STAGE_TINY))
    tracked = {**os.environ, READS_ENV: str(wd / READS)}
    target = "results/tables/delta50_two_stage.csv"
    snakemake(wd, target, "--configfile", "config.yaml", str(overlay), env=tracked)
    fields, read = settings_reads(wd / READS)["TwoStageSettings"]
    assert fields == read  # the two-stage cells read every field of their settings
    tables = wd / "results" / "tables"
    header = (tables / "delta50_two_stage.csv").read_text().splitlines()[0].split(",")
    assert {"t0", "delta50_predicted", "delta50_empirical", "delta_nn_long_time"} <= set(header)
    assert len((tables / "escape_two_stage_scans.csv").read_text().splitlines()) == 1 + 2 * 3
    assert (wd / "results" / "figures" / "extra_escape_two_stage.png").stat().st_size > 1000
    assert not any("two_stage" in rule for rule in job_counts(snakemake(wd, "-n", "--forceall").stdout))


@pytest.mark.builds
def test_the_convention_overlay_builds_its_table_and_the_default_target_has_none_of_it(tmp_path):
    wd = copy_workflow(tmp_path, TINY)
    overlay = tmp_path / "conventions.yaml"
    overlay.write_text(yaml.safe_dump(CONVENTIONS_TINY))
    tracked = {**os.environ, READS_ENV: str(wd / READS)}
    snakemake(wd, "results/tables/conventions.csv", "--configfile", "config.yaml", str(overlay), env=tracked)
    for cls in ("SweepSettings", "ConventionPlateauSettings"):
        fields, read = settings_reads(wd / READS)[cls]
        assert fields == read, (cls, fields - read)
    rows = (wd / "results" / "tables" / "conventions.csv").read_text().splitlines()
    assert len(rows) == 3 and rows[0].startswith("convention,")
    assert (wd / "results" / "figures" / "extra_conventions.png").stat().st_size > 1000
    assert not any("convention" in rule for rule in job_counts(snakemake(wd, "-n", "--forceall").stdout))


def test_editing_one_delta_reruns_only_that_cell(tiny_run, tmp_path):
    config = yaml.safe_load(TINY.read_text())
    config["sweeps"]["gelu"]["delta"][1] = 13.0
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    proc = snakemake(tiny_run, "-n", "--configfile", str(edited))  # replaces the sweeps' keys
    counts = job_counts(proc.stdout)
    assert counts == {
        "sweep_block": 1,
        "aggregate_sweep": 1,
        "threshold_table": 1,
        # Fig 4; the bump figure, which draws the prediction table below; Fig 5, whose threshold lines
        # come from the theory table, which lists the sweeps' δ₅₀ too
        "phase_figure": 3,
        "spectral_figure": 1,  # Fig 1 shows the gelu sweep too
        "sweep_escape_steps_figure": 1,
        "width_figure": 1,  # the gelu sweep is the m = 1 point of the width figure
        "theory_tables": 1,  # the theory table lists the empirical δ₅₀ beside δ_NN
        "theory_figure": 1,  # fig10b_delta_nn draws them
        "escape_prediction_table": 1,  # reads the theory table
        "finite_size_scaling": 1,  # extrapolates the gelu sweep's δ₅₀(d)
        "escape_finite_n_compare": 1,  # compares the prediction with the measured δ₅₀(d)
        "spectral_threshold_table": 1,  # reads δ_NN(∞) from the theory table
        "plateau_theory_table": 1,  # so does the plateau-vs-theory table
        "plateau_theory_figure": 1,
        "claims_table": 1,  # the Fig 4 sweep's δ₅₀ is a claim
        "manuscript": 1,
        "all": 1,
    }
    assert "results/sweeps/gelu/d60_delta13/block0.npz" in proc.stdout
    assert "Drawing fig4_phase_gelu\n" in proc.stdout and "Drawing extra_phase_gelu_bump\n" in proc.stdout
    assert "Drawing fig5_phase_quad" in proc.stdout  # its threshold lines read the theory table (see above)


def test_editing_a_sweep_setting_reruns_exactly_that_sweep(tiny_run, tmp_path):
    config = yaml.safe_load(TINY.read_text())
    config["sweeps"]["quad"]["lr"] = 0.04
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    counts = job_counts(snakemake(tiny_run, "-n", "--configfile", str(edited)).stdout)
    assert counts["sweep_block"] == 2  # the two quad cells, no gelu cell
    assert "grokking_run" not in counts


def test_editing_a_theory_grid_reruns_that_model_only(tiny_run, tmp_path):
    config = yaml.safe_load(TINY.read_text())
    config["theory"]["models"]["quad"]["delta"] = [3.0, 8.0, 10.0]
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    proc = snakemake(tiny_run, "-n", "--configfile", str(edited))
    assert job_counts(proc.stdout) == {
        "dmft_model": 2,  # quad at both N, not gelu_bump
        "fixed_point_model": 1,
        "theory_tables": 1,
        "theory_figure": 3,
        "hessian_delta_figure": 1,  # draws the quad fixed point
        "escape_prediction_table": 1,  # reads δ_NN(∞) from the theory table
        "finite_size_scaling": 1,  # so does the finite-size table
        "spectral_threshold_table": 1,  # and the spectral-threshold table
        "plateau_theory_table": 1,  # and the plateau-vs-theory table (quad's fixed point)
        "plateau_theory_figure": 1,
        "phase_figure": 2,  # the bump sweep's figure draws that prediction, Fig 5 quad's threshold lines
        "escape_finite_n_compare": 1,  # reads the finite-size table's measured δ₅₀(d)
        "claims_table": 1,  # so do the claims
        "manuscript": 1,
        "all": 1,
    }
    assert "results/theory/dmft/quad_N400.npz" in proc.stdout and "gelu_bump_N400" not in proc.stdout


@pytest.fixture(scope="module")
def snakemake_rules(tmp_path_factory):
    """{rule: the script its jobs run, or None}, read from Snakemake's own rules of the default config
    (``tests/dag_dump.py``)."""
    out = tmp_path_factory.mktemp("dag") / "dag.json"
    dump = [sys.executable, ROOT / "tests" / "dag_dump.py", out]
    subprocess.run(dump, cwd=ROOT, check=True, capture_output=True)
    return json.loads(out.read_text())["rules"]


def test_every_rule_runs_the_script_it_declares(snakemake_rules):
    """What each rule's jobs run, read from Snakemake's own run functions (``dag_dump.rule_scripts``:
    the script directive is evaluated again when a job runs), is the script its block writes out."""
    ran = {rule: script for rule, script in snakemake_rules.items() if script}
    assert ran == {rule: blocks[0][2] for rule, blocks in rule_blocks().items() if blocks[0][2]}


def test_every_rule_has_one_literal_block_which_its_registry_entry_agrees_with(snakemake_rules):
    """Every rule Snakemake knows has exactly one block (``rule NAME:``, or ``use rule … as NAME
    with:``) in the rule files, and no block declares a rule Snakemake does not know; each job kind
    (``jobs.Kind``) and each table or figure rule (``result_rules.ResultRule``) has its block, and the
    block runs the script its entry names (the code stamp and the numba warm-up read the entry's)."""
    from featlearn.pipeline.jobs import KINDS
    from featlearn.pipeline.result_rules import RESULT_RULES

    blocks = rule_blocks()
    assert {rule: len(found) for rule, found in blocks.items() if len(found) != 1} == {}
    assert set(blocks) == set(snakemake_rules)
    for entry in (*KINDS, *RESULT_RULES):
        assert blocks[entry.rule][0][2] == f"{entry.script}.py", entry.rule
    for entry in RESULT_RULES:  # where its jobs run: the block says what the declaration says
        ((path, line, _),) = blocks[entry.rule]
        block = (ROOT / path).read_text().split("\n")[line - 1 : line + 4]
        assert f"    localrule: {entry.local}" in block, entry.rule


def test_a_failing_job_names_its_own_block(tiny_run, tmp_path):
    """A job that fails is reported at its rule's block: its script made to raise, a run of one job of
    ``grokking_figure`` fails, and Snakemake names the rule's name, its rule file and a line of its
    block (the ``script:`` directive's; with the rules from a loop, every rule reported one line)."""
    tree = tmp_path / "tree"
    shutil.copytree(tiny_run, tree, symlinks=True)
    (tree / "workflow" / "scripts" / "plot_grokking.py").write_text(
        'raise RuntimeError("injected failure")\n'
    )
    stem = next(iter(yaml.safe_load((tree / "config.yaml").read_text())["grokking"]))
    target = f"results/figures/{stem}.pdf"
    proc = subprocess.run(
        ["snakemake", "--cores", "1", "--forcerun", "grokking_figure", target],
        cwd=tree, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    ((path, line, _),) = rule_blocks()["grokking_figure"]
    block = (ROOT / path).read_text().split("\n")[line - 1 :]
    end = line + next(
        (i for i, text in enumerate(block[1:], 1) if not text.startswith((" ", "\t"))), len(block)
    )
    assert proc.returncode != 0 and "injected failure" in proc.stderr + proc.stdout
    assert "Error in rule grokking_figure:" in proc.stderr
    reported = re.search(rf'"[^"]*{re.escape(str(path))}", line (\d+)', proc.stderr)
    assert reported and line <= int(reported[1]) < end, proc.stderr[-3000:]  # a line of its own block


RUNTIME_IMPORTS = """
import ast, importlib, os, sys
import matplotlib.pyplot, numba, numpy, scipy.optimize, scipy.special, scipy.stats, sympy, yaml
for program in sys.argv[1:]:
    name, script, *imports = program.split("|")
    pid = os.fork()  # a fresh child per program: only the third-party modules are shared
    if pid == 0:
        for node in ast.walk(ast.parse(open(script).read())):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and "featlearn" in ast.unparse(node):
                exec(ast.unparse(node))
        for module in imports:
            importlib.import_module(module)
        names = [m.__file__ for n, m in sorted(sys.modules.items()) if n.split(".")[0] == "featlearn"]
        print(name, *names, flush=True)
        os._exit(0)
    assert os.waitpid(pid, 0)[1] == 0, program
"""


def rule_programs():
    """{rule: the program its jobs run} (``jobs.Kind.program``: a kind that names its compute
    function is a program of its own, named by its rule; every other rule's is its script)."""
    from featlearn.pipeline.jobs import KIND

    return {
        rule: KIND[rule].program if rule in KIND else script.removesuffix(".py")
        for rule, ((_, _, script),) in rule_blocks().items()
        if script
    }


def runtime_imports(programs):
    """{program: files of the featlearn modules Python loads when it runs the import statements of
    the program's script, at any depth (compute scripts import inside ``main``), and imports the
    modules it names (``jobs.Kind.imports``)}: one interpreter imports the third-party libraries
    once, then forks a fresh child per program."""
    from featlearn.pipeline.kernels import program_files

    args = []
    for program in programs:
        script, _, imports = program_files(program, ROOT)
        args.append("|".join((program, str(script), *imports)))
    command = ["python", "-c", RUNTIME_IMPORTS, *args]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = [line.split() for line in proc.stdout.splitlines()]
    return {name: {str(Path(f).resolve().relative_to(ROOT)) for f in files} for name, *files in lines}


ON_DEMAND = {"src/featlearn/model/link_expressions.py", "src/featlearn/model/catalogue.py"}
"""Modules imported inside a function, when a job needs them: ``links.get_link`` loads the link printer
(and with it sympy's catalogue) for a link written as an expression.  The derived code inputs keep
them, since a job on such a link runs them."""


@pytest.fixture(scope="module")
def program_imports():
    """``runtime_imports`` of every rule's program, in two interpreters (half the programs each)."""
    programs = sorted(set(rule_programs().values()))
    halves = concurrently(runtime_imports, [tuple(programs[0::2]), tuple(programs[1::2])])
    return {program: files for half in halves.values() for program, files in half.items()}


@pytest.mark.parametrize("program", sorted(set(rule_programs().values())))
def test_derived_code_inputs_are_the_modules_the_program_imports(program_imports, program):
    from featlearn.pipeline.deps import module_closure
    from featlearn.pipeline.kernels import program_files

    derived = {str(f.relative_to(ROOT)) for f in module_closure(*program_files(program, ROOT))}
    loaded = program_imports[program]
    assert loaded <= derived and derived - loaded <= ON_DEMAND


def test_no_hand_kept_module_lists_in_the_rules():
    """Rules name only their scripts (or programs); the modules behind them are derived
    (``code(program)``)."""
    text = "".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    named = set(re.findall(r'code\("(\w+)"\)', text))
    assert named and named <= {p.stem for p in (ROOT / "workflow" / "scripts").glob("*.py")}
    assert "src/featlearn" not in text and "workflow.basedir) /" not in text


def detailed_summary(workdir):
    """(output, rule, input files, plan) of every output, from ``--detailed-summary``."""
    proc = snakemake(workdir, "--detailed-summary")
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:] if "\t" in line]
    return [(row[0], row[2], set(row[4].split(",")), row[7]) for row in rows]


def downstream(rows, outputs):
    """Every output that reads, directly or not, one of ``outputs``."""
    reached, frontier = set(outputs), set(outputs)
    while frontier:
        frontier = {out for out, _, inputs, _ in rows if inputs & frontier} - reached
        reached |= frontier
    return reached


@pytest.mark.parametrize(
    "module",
    [  # a compute module and a figure module by default; the other layers (~14 s each) with the slow checks
        "model/loss.py",
        "plotting/theory_figures.py",
        *(pytest.param(m, marks=pytest.mark.slow) for m in ("theory/dmft.py", "analysis/criteria.py")),
        pytest.param("gd/trials.py", marks=pytest.mark.slow),
    ],
)
def test_editing_a_module_reruns_exactly_the_rules_that_import_it(
    tiny_run, program_imports, tmp_path, module
):
    """The edit rewrites the code stamps of exactly the scripts whose derived code holds the module;
    the rules with one of those stamps among their inputs are those whose script imports it (at
    run time, checked independently), and the edit schedules exactly them and what reads their
    outputs."""
    from featlearn.pipeline import kernels
    from featlearn.pipeline.deps import kernel_closure, module_closure

    work = tmp_path / "copy"
    shutil.copytree(tiny_run, work, symlinks=True)
    with open(work / "src" / "featlearn" / module, "a") as fh:
        fh.write("\n# an edit\n")
    path = f"src/featlearn/{module}"
    code = work / "results" / ".code"
    before = {p: p.read_text() for p in code.rglob("*.sha256")}
    closures = {
        p: module_closure if p.parent == code else kernel_closure for p in before
    }  # kernels/: warm-ups
    files = {p: kernels.program_files(p.stem, work) for p in before}  # a stamp is named by its program
    edited = (work / path).resolve()
    reaching = {p for p, f in files.items() if edited in closures[p](*f)}
    stamps = {p.relative_to(work).as_posix() for p in reaching}
    programs = rule_programs()
    importers = {rule for rule, program in programs.items() if path in program_imports[program]}
    # a leader's warm-up compiles its kernel modules and what they import; a script whose kernel
    # modules a leader's are links to the leader's cache (numba_cache_link)
    warmed = set(kernels.warmed_programs())
    if any(edited in kernel_closure(*files[p]) for p in before if p.stem in warmed):
        importers.add("numba_cache")
    if {programs[rule] for rule in importers} & {s for s in warmed if kernels.kernel_leader(s, ROOT) != s}:
        importers.add("numba_cache_link")
    assert importers  # every listed module is imported somewhere
    rows = detailed_summary(work)
    assert {p for p, text in before.items() if p.read_text() != text} == reaching
    importers &= {rule for _, rule, _, _ in rows}  # rules of overlays (conventions) are not in this DAG
    assert {rule for _, rule, inputs, _ in rows if inputs & stamps} == importers
    direct = {out for out, rule, inputs, _ in rows if inputs & stamps}
    expected = {rule for out, rule, _, _ in rows if out in downstream(rows, direct)}
    assert {rule for _, rule, _, plan in rows if plan == "update pending"} == expected


def test_a_copied_checkout_reruns_nothing(tiny_run, tmp_path):
    work = tmp_path / "moved"
    shutil.copytree(tiny_run, work, symlinks=True)
    proc = snakemake(work, "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr, proc.stdout[-3000:]


def test_the_tiny_configfile_replaces_the_default_config():
    """``--configfile tiny.yaml`` builds exactly the tiny DAG: no cell of config.yaml leaks in."""
    proc = snakemake(ROOT, "-n", "--forceall", "--configfile", str(TINY))
    tiny = yaml.safe_load(TINY.read_text())
    counts = job_counts(proc.stdout)
    assert counts["sweep_block"] == sum(len(s["d"]) * len(s["delta"]) for s in tiny["sweeps"].values())
    assert counts["dmft_model"] == 2 * len(tiny["theory"]["models"])
    assert "gelu_m4" not in proc.stdout and "results/theory/dmft/gelu_N" not in proc.stdout


def result_files(workdir):
    """{relative path: bytes} of every result (logs, timings and the numba cache are not results;
    nor is the manuscript, whose performance section reports the timings of the run that built it)."""
    skip = ("logs", "benchmarks", ".numba_cache", "paper")
    root = workdir / "results"
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and p.relative_to(root).parts[0] not in skip
    }


@pytest.mark.builds
def test_a_killed_build_resumes_as_documented(tiny_run, tmp_path):
    """SIGKILL the whole build mid-way (master and jobs, as a lost node would), then the README's
    recovery (`snakemake --unlock`, then the same command): every result byte-identical to an
    uninterrupted build."""
    wd = copy_workflow(tmp_path, TINY)
    master = subprocess.Popen(
        ["snakemake", "--cores", "2"],
        cwd=wd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.time() + 300
    while len(list((wd / "results").glob("sweeps/*/*/block*.npz"))) < 4 and time.time() < deadline:
        time.sleep(0.2)
    os.killpg(master.pid, signal.SIGKILL)
    master.wait()
    assert (wd / ".snakemake" / "locks").exists() and any((wd / ".snakemake" / "locks").iterdir())
    blocked = snakemake(wd, check=False)
    assert blocked.returncode != 0 and "--unlock" in blocked.stdout + blocked.stderr
    snakemake(wd, "--unlock")
    snakemake(wd)  # rerun-incomplete comes from the default profile
    assert result_files(wd) == result_files(tiny_run)


def benchmark(path):
    """(seconds, max RSS in MB) of a Snakemake benchmark file."""
    header, row = path.read_text().splitlines()[:2]
    values = dict(zip(header.split("\t"), row.split("\t"), strict=True))
    return float(values["s"]), float(values["max_rss"])


USAGE_SCRIPT = """
import types
from featlearn.io.job import logger

snakemake = types.SimpleNamespace(log=types.SimpleNamespace(usage={usage!r}))  # as Snakemake's preamble
logger({log!r})("started")
"""


def test_a_job_writes_its_usage_record_in_snakemakes_benchmark_format(tmp_path):
    """A script whose rule declares a ``usage`` log writes there, at exit, one row under Snakemake's
    benchmark header, which the readers of benchmark files take (``featlearn.plan``): its peak memory
    is the interpreter's (tens of MB), its CPU time at most its wall time (one thread)."""
    from snakemake.benchmark import BenchmarkRecord

    from featlearn.plan import measured_seconds

    usage, log = tmp_path / "usage.tsv", tmp_path / "job.log"
    subprocess.run(["python", "-c", USAGE_SCRIPT.format(usage=str(usage), log=str(log))], check=True)
    header, row = (line.split("\t") for line in usage.read_text().splitlines())
    assert header == BenchmarkRecord.get_header()
    values = dict(zip(header, row, strict=True))
    assert 5 < float(values["max_rss"]) < 500 and float(values["cpu_time"]) <= float(values["s"]) + 0.05
    assert measured_seconds(usage) == float(values["s"]) > 0 and "started" in log.read_text()


def test_requested_resources_cover_what_the_tiny_jobs_used(tiny_run):
    """Every compute job's requested memory (the registry's) is never below its measured peak, and
    the requested runtime never below the measured one (it is an upper bound).  How far above is a
    quick-scale question: at the tiny scale every request is the interpreter floor BASE_MB while the
    measured peak varies by 50 % between runs; ``benchmarks/resource_model.py`` reports the ratios."""
    from featlearn.pipeline import jobs, resources

    checked = 0
    for job in jobs.compute_jobs(yaml.safe_load(TINY.read_text())):
        seconds, rss = benchmark(tiny_run / job.benchmark)
        assert rss <= job.mem_mb, (job.benchmark, rss, job.mem_mb)
        assert seconds <= 60 * resources.minutes(job.seconds), (job.benchmark, seconds, job.seconds)
        checked += 1
    assert checked >= 30


def summary(configfiles):
    """Snakemake's summary (a line per output) of a fresh build of ``configfiles``."""
    args = ["--configfile", *map(str, configfiles)] if configfiles else []
    return snakemake(ROOT, "--summary", "--directory", str(ROOT), *args, check=False)


def scheduled_outputs(proc):
    """{output: rule} of every job, from a summary."""
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    rows = [line.split("\t") for line in proc.stdout.splitlines()[1:] if "\t" in line]
    return {row[0]: row[2] for row in rows}


@pytest.fixture(scope="module")
def summaries(request):
    """{configfiles: summary} of the selected tests' configs, two Snakemake processes at a time."""
    return concurrently(summary, selected_params(request, "configfiles"))


CONFIGS = [
    (),
    (TINY,),
    *[
        (path,) if path.name == "paper.yaml" else (ROOT / "config.yaml", path)
        for path in sorted((ROOT / "workflow" / "configs").glob("*.yaml"))
        if path.name != "tiny.yaml"
    ],
]


QUICK = ((), (TINY,))
"""The configs whose summaries the default run checks."""


@pytest.mark.parametrize(
    "configfiles",
    [  # the overlays' and paper.yaml's summaries (~90 s on 2 cores) run with the slow checks
        pytest.param(
            c, id="+".join(p.name for p in c) or "default", marks=() if c in QUICK else pytest.mark.slow
        )
        for c in CONFIGS
    ],
)
def test_the_plan_lists_exactly_the_compute_jobs_snakemake_schedules(summaries, configfiles):
    """``featlearn.plan`` (the job registry) lists the same compute jobs, by output file, as
    Snakemake's DAG, for the default config, the tiny one and every overlay."""
    from featlearn.pipeline import jobs
    from featlearn.plan import load_config

    config = load_config(configfiles or [ROOT / "config.yaml"])
    planned = {job.output: job.rule for job in jobs.compute_jobs(config)}
    compute = {kind.rule for kind in jobs.KINDS}
    outputs = scheduled_outputs(summaries[configfiles])
    scheduled = {out: rule for out, rule in outputs.items() if rule in compute}
    assert planned == scheduled


def test_a_checkout_driven_by_another_checkouts_package_stops_naming_both(tmp_path):
    """A copy of the workflow whose package differs from the imported one (here: a registry edited in
    the copy, the installed package left as it was) stops at parse time with one line naming both
    packages; the same copy with its own package first on PYTHONPATH parses; an identical copy
    (what the tests and the SLURM jobs run) parses without it."""
    from featlearn.pipeline.deps import foreign_package

    work = copy_workflow(tmp_path)
    assert foreign_package(work) is None  # byte-identical code: the installed package is its own
    jobs = work / "src" / "featlearn" / "pipeline" / "jobs.py"
    jobs.write_text(jobs.read_text() + "\n# an edit in the copy\n")
    plain = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(
        ["snakemake", "-n"], cwd=work, capture_output=True, text=True, env=plain, timeout=300
    )
    assert proc.returncode != 0
    message = [
        line for line in (proc.stdout + proc.stderr).splitlines() if "Python imports featlearn" in line
    ]
    assert len(message) == 1 and str(work / "src" / "featlearn") in message[0], proc.stderr[-2000:]
    assert str(Path(__import__("featlearn").__file__).resolve().parent) in message[0]
    snakemake(work, "-n")  # conftest's snakemake puts the copy's package first
