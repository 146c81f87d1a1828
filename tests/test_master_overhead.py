"""benchmarks/master_overhead.py: ``compare`` (two kept builds side by side, on hand-made trees) and
the stubs of the ``synthetic`` and ``startup`` modes."""

import importlib.util
import json
import sys
import types
from pathlib import Path

BENCHMARK = Path(__file__).resolve().parents[1] / "benchmarks" / "master_overhead.py"


def _module():
    spec = importlib.util.spec_from_file_location("master_overhead", BENCHMARK)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _build(root, run, records, tables):
    """A kept build: its measurement, benchmark records {path: wall s} and tables {name: text}."""
    (root / "master_overhead.json").parent.mkdir(parents=True)
    (root / "master_overhead.json").write_text(json.dumps(run))
    for path, wall in records.items():
        record = root / "results" / "benchmarks" / path
        record.parent.mkdir(parents=True, exist_ok=True)
        record.write_text(f"s\th:m:s\tcpu_time\n{wall}\t0:00:00\t0.1\n")
    for name, text in tables.items():
        table = root / "results" / "tables" / name
        table.parent.mkdir(parents=True, exist_ok=True)
        table.write_text(text)
    return root


def test_compare_sums_job_walls_per_group_and_over_the_shared_jobs(tmp_path):
    run = {"master": 10.0, "solver": 0.0, "jobs": 100.0, "rounds": 5, "wall": 60.0, "steps": 3}
    base = _build(
        tmp_path / "base",
        run,
        {"sweeps/a/d1.tsv": 10.0, "sweeps/a/d2.tsv": 20.0, "scan/x.tsv": 5.0, "top.tsv": 1.0},
        {"same.csv": "1\n", "moved.csv": "1\n", "gone.csv": ""},
    )
    new = _build(
        tmp_path / "new",
        {**run, "master": 1.0, "wall": 45.0},
        {
            "sweeps/a/d1.tsv": 8.0,
            "sweeps/a/d2.tsv": 16.0,
            "scan/x.tsv": 4.0,
            "scan/y.tsv": 30.0,
            "top.tsv": 1.0,
        },
        {"same.csv": "1\n", "moved.csv": "2\n", "added.csv": ""},
    )
    out = _module().compare(base, new)
    assert out[2] == "new/base  wall 0.75x  master 0.10x  jobs 1.00x"
    rows = {line.split()[0]: line.split()[1:] for line in out[4:-3]}
    assert rows["sweeps"] == ["2", "30.0", "2", "24.0"]
    assert rows["scan"] == ["1", "5.0", "2", "34.0"]
    assert rows["top"] == ["1", "1.0", "1", "1.0"]
    assert out[-3].split()[3:] == ["4", "36.0", "4", "29.0", "new/base", "0.81x"]  # 29 / 36
    assert out[-2] == "tables: 1 byte-identical, 1 differ: moved.csv"
    assert out[-1] == "tables only in base: gone.csv; only in new: added.csv"


def test_a_stub_runs_its_scripts_imports_only_in_startup_mode(tmp_path, monkeypatch):
    """``startup``'s stub executes the script's imports (a module it imports is loaded), the
    ``synthetic`` stub does not; both open the log and create the outputs, never the science."""
    module = _module()
    (tmp_path / "imported_by_job.py").write_text("")
    script = tmp_path / "job.py"
    script.write_text("def main(sm):\n    import imported_by_job\n    raise SystemExit('science ran')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for run in (False, True):
        monkeypatch.delitem(sys.modules, "imported_by_job", raising=False)
        out = tmp_path / f"out_{run}" / "table.csv"
        sm = types.SimpleNamespace(log=[str(tmp_path / f"job_{run}.log")], output=[str(out)])
        exec(compile(module.stub(script, run), "stub", "exec"), {"snakemake": sm})
        assert ("imported_by_job" in sys.modules) is run
        assert out.exists() and Path(sm.log[0]).exists()
