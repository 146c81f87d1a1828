"""The conda environment for --sdm conda lists the same dependencies as pyproject.toml."""

import re
import tomllib
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_conda_env_matches_pyproject():
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {re.split(r"[<>=!~ ]", d)[0] for d in deps} - {"snakemake", "snakemake-executor-plugin-slurm"}
    env = yaml.safe_load((ROOT / "envs" / "featlearn.yaml").read_text())
    pip = next((d["pip"] for d in env["dependencies"] if isinstance(d, dict)), [])
    listed = [d for d in env["dependencies"] if isinstance(d, str)] + [
        d for d in pip if not d.startswith("-e")
    ]
    conda = {re.split(r"[<>=!~ ]", d)[0]: d for d in listed}
    pins = {re.split(r"[<>=!~ ]", d)[0]: d for d in deps}
    for name in names:
        assert name in conda, name
        assert conda[name].replace(" ", "") == pins[name].replace(" ", ""), name
