"""Workflow tests: schema errors, dry-run of the whole DAG, a tiny end-to-end run, and reruns."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
TINY = ROOT / "workflow" / "configs" / "tiny.yaml"


def copy_workflow(dest, config=ROOT / "config.yaml"):
    """A copy of the workflow in ``dest`` with ``config`` as its config.yaml."""
    shutil.copy(ROOT / "Snakefile", dest / "Snakefile")
    shutil.copy(config, dest / "config.yaml")
    for name in ("workflow", "src", "envs"):
        shutil.copytree(ROOT / name, dest / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return dest


def snakemake(workdir, *args, check=True):
    proc = subprocess.run(
        ["snakemake", "--cores", "2", *args], cwd=workdir, capture_output=True, text=True, timeout=600
    )
    if check and proc.returncode != 0:
        raise AssertionError(proc.stdout[-3000:] + proc.stderr[-3000:])
    return proc


def job_counts(output):
    """{rule: count} from the 'Job stats' table of a dry run."""
    table = output.split("Job stats:")[1].split("total")[0]
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M)}


def test_dry_run_of_the_default_dag():
    proc = snakemake(ROOT, "-n", "--forceall")
    counts = job_counts(proc.stdout)
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    cells = sum(len(s["d"]) * len(s["delta"]) for s in config["sweeps"].values())
    assert counts["sweep_cell"] == cells
    assert counts["phase_figure"] == len(config["sweeps"])
    assert counts["grokking_figure"] == counts["grokking_run"] == len(config["grokking"])


def test_lint_is_clean():
    proc = subprocess.run(["snakemake", "--lint"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Lints for" not in proc.stdout + proc.stderr


BAD_CONFIGS = {
    "wrong type": ({"sweeps": {"gelu": {"trials": "many"}}}, "sweeps.gelu.trials"),
    "unknown activation": ({"sweeps": {"gelu": {"activation": "softplus"}}}, "sweeps.gelu.activation"),
    "non-positive delta": ({"sweeps": {"quad": {"delta": [2.0, 0.0]}}}, "sweeps.quad.delta.1"),
    "unknown key": ({"defaults": {"learning_rat": 1.0}}, "defaults"),
    "theory step beyond the horizon": ({"theory": {"report_steps": [2, 500]}}, "theory.report_steps"),
    "theory model for m > 1": ({"theory": {"models": {"quad": {"m": 2}}}}, "theory.models.quad.m"),
    "yaml float written as string": (
        {"grokking": {"fig2_grokking_gelu": {"delta": "1e1"}}},
        "grokking.fig2_grokking_gelu.delta",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_bad_config_fails_before_any_job_naming_the_key(tmp_path, case):
    override, key = BAD_CONFIGS[case]
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(override))
    proc = snakemake(ROOT, "-n", "--configfile", str(bad), check=False)
    assert proc.returncode != 0
    lines = [ln for ln in (proc.stdout + proc.stderr).splitlines() if "config error at" in ln]
    assert len(lines) == 1 and f"'{key}'" in lines[0], proc.stderr[-2000:]
    assert "Job stats" not in proc.stdout


def test_missing_key_fails_naming_it(tmp_path):
    wd = copy_workflow(tmp_path)
    config = yaml.safe_load((wd / "config.yaml").read_text())
    del config["defaults"]["n_test"]
    (wd / "config.yaml").write_text(yaml.safe_dump(config))
    proc = snakemake(wd, "-n", check=False)
    assert proc.returncode != 0
    assert re.search(
        r"config error at 'defaults': 'n_test' is a required property", proc.stdout + proc.stderr
    )


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    wd = copy_workflow(tmp_path_factory.mktemp("tiny"), TINY)
    snakemake(wd)
    return wd


def test_tiny_end_to_end(tiny_run):
    results = tiny_run / "results"
    stems = (
        "fig1_spectral_vs_random",
        "fig2_grokking_gelu",
        "fig4_phase_gelu",
        "fig5_phase_quad",
        "fig4_phase_gelu_spectral",
        "fig7_hessian_spectrum",
        "fig8_hessian_vs_delta",
        "fig8_hessian_trajectory",
        "fig_escape_steps",
        "fig6_width",
        "fig11_easy_hard",
        "fig9_dmft_vs_simulation",
        "fig10_outlier_vs_time",
        "fig10_delta_nn",
    )
    for stem in stems:
        for ext in ("pdf", "png"):
            assert (results / "figures" / f"{stem}.{ext}").stat().st_size > 1000
    table = (results / "tables" / "thresholds.csv").read_text().splitlines()
    assert table[0].startswith("kind,sweep,activation,link,m,init,d,")
    assert sum(row.startswith("delta50") for row in table) == 5  # one per (sweep, d), easy_hard excluded
    assert sum(row.startswith("delta_alg") for row in table) == 4  # one per single-index link
    theory = (results / "tables" / "theory_thresholds.csv").read_text().splitlines()
    assert theory[0].startswith("model,activation,link,lr,paths,delta_alg,delta_nn_t2,")
    assert len(theory) == 3  # one row per theory model
    assert "\\begin{tabular}" in (results / "tables" / "theory_thresholds.tex").read_text()
    assert all((results / "logs").rglob("*.log"))
    nothing = snakemake(tiny_run, "-n")
    assert "Nothing to be done" in nothing.stdout + nothing.stderr


def test_editing_one_delta_reruns_only_that_cell(tiny_run, tmp_path):
    config = yaml.safe_load(TINY.read_text())
    config["sweeps"]["gelu"]["delta"][1] = 13.0
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    proc = snakemake(tiny_run, "-n", "--configfile", str(edited))  # replaces the sweeps' keys
    counts = job_counts(proc.stdout)
    assert counts == {
        "sweep_cell": 1,
        "aggregate_sweep": 1,
        "threshold_table": 1,
        "phase_figure": 1,
        "spectral_figure": 1,  # Fig 1 shows the gelu sweep too
        "escape_figure": 1,
        "width_figure": 1,  # the gelu sweep is the m = 1 point of the width figure
        "theory_tables": 1,  # the theory table lists the empirical δ₅₀ beside δ_NN
        "theory_figure": 1,  # fig10_delta_nn draws them
        "all": 1,
    }
    assert "results/sweeps/gelu/d60_delta13.npz" in proc.stdout
    assert "Drawing fig4_phase_gelu\n" in proc.stdout and "Drawing fig5_phase_quad" not in proc.stdout


def test_editing_a_sweep_setting_reruns_exactly_that_sweep(tiny_run, tmp_path):
    config = yaml.safe_load(TINY.read_text())
    config["sweeps"]["quad"]["lr"] = 0.04
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(config))
    counts = job_counts(snakemake(tiny_run, "-n", "--configfile", str(edited)).stdout)
    assert counts["sweep_cell"] == 2  # the two quad cells, no gelu cell
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
        "all": 1,
    }
    assert "results/theory/dmft/quad_N400.npz" in proc.stdout and "gelu_bump_N400" not in proc.stdout
