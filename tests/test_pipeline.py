"""The workflow's side of the package: derived code dependencies, typed settings, the manifest."""

import re
import tomllib
from dataclasses import FrozenInstanceError, replace
from pathlib import Path

import pytest
import yaml

from featlearn.io.settings import JobSettings, settings_class
from featlearn.pipeline import jobs, kernels, manifest, resources, settings
from featlearn.pipeline.deps import closure_digest, module_closure, module_names

ROOT = Path(__file__).resolve().parents[1]
CONFIG = yaml.safe_load((ROOT / "config.yaml").read_text())


def make_package(root):
    """featlearn/{__init__, a/__init__, a/x, a/y, b/__init__, b/z}: x imports y relatively and b.z
    inside a function; z imports nothing."""
    pkg = root / "featlearn"
    for sub in ("a", "b"):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "x.py").write_text("from . import y\n\ndef f():\n    from featlearn.b.z import g\n")
    (pkg / "a" / "y.py").write_text("import numpy\n")
    (pkg / "b" / "z.py").write_text("def g():\n    pass\n")
    (pkg / "b" / "unused.py").write_text("")
    return pkg


def test_closure_follows_relative_absolute_and_nested_imports(tmp_path):
    pkg = make_package(tmp_path)
    script = tmp_path / "script.py"
    script.write_text("from featlearn.a import x  # noqa\n")
    found = {str(p.relative_to(pkg)) for p in module_closure(script, pkg)}
    assert found == {"__init__.py", "a/__init__.py", "a/x.py", "a/y.py", "b/__init__.py", "b/z.py"}
    assert "featlearn.b.z" in module_names(script, pkg) and "featlearn.b.unused" not in module_names(
        script, pkg
    )


def test_a_module_imported_by_name_counts_as_the_script_s_import(tmp_path):
    """A kind that names its compute function (``Kind.compute``) runs a generic script: its closure
    is the script's and that function's module's (the module itself, its packages and its imports)."""
    pkg = make_package(tmp_path)
    script = tmp_path / "runner.py"
    script.write_text("import os  # noqa\n")
    assert module_closure(script, pkg) == []
    found = {str(p.relative_to(pkg)) for p in module_closure(script, pkg, ("featlearn.a.x",))}
    assert found == {"__init__.py", "a/__init__.py", "a/x.py", "a/y.py", "b/__init__.py", "b/z.py"}
    assert closure_digest(script, pkg, imports=("featlearn.b.z",)) != closure_digest(
        script, pkg, imports=("featlearn.a.x",)
    )


def test_a_kind_that_names_its_function_is_a_program_of_its_own():
    """``Kind(compute=...)``: the generic script ``run_compute`` runs it, the function is a param
    from no config key, and its code stamp and numba cache are keyed by its rule (``program``) with
    the function's module among its imports.  No program of the registry is another's, and a
    compute kind's program names no script (their stamps share ``results/.code/``)."""
    base = jobs.KIND["hessian_cell"]
    kind = replace(base, rule="toy_cell", compute="featlearn.hessian.plateau.plateau_cell", script="")
    assert (kind.script, kind.program, kind.imports) == (
        "run_compute",
        "toy_cell",
        ("featlearn.hessian.plateau",),
    )
    params, _ = kind.params(CONFIG, {"activation": "quad", "delta": "4"})
    assert params["compute"] == "featlearn.hessian.plateau.plateau_cell" and "compute" in kind.param_names()
    assert (base.program, base.imports) == ("hessian_cell", ("featlearn.hessian.plateau",))
    script_kind = jobs.KIND["sweep_block"]  # names its script: no compute param, no imports by name
    cell = {"sweep": "gelu", "d": "250", "delta": "5", "block": "0"}
    assert "compute" not in script_kind.params(CONFIG, cell)[0] and script_kind.imports == ()
    with pytest.raises(ValueError, match="names its script or its compute function"):
        replace(script_kind, script="")  # no naming default: the rule's name is no script
    for wrong in ("featlearn.hessian.plateu.plateau_cell", "numpy.linalg.eigh", "plateau_cell"):
        with pytest.raises(ValueError, match="compute names no function of a featlearn module"):
            replace(base, rule="toy_cell", compute=wrong, script="")
    with pytest.raises(ValueError, match="a compute kind is warm and writes one .npz"):
        replace(kind, warm=False)
    # the job side types the numeric wildcards the registry constrains (the master cannot import
    # io.cells, which reaches numba, so the two tables are kept in step here)
    from featlearn.io.cells import COORDINATES

    assert set(COORDINATES) == set(jobs.NUMERIC)
    scripts = {p.stem for p in (ROOT / "workflow" / "scripts").glob("*.py")}
    programs = [kind.program for kind in jobs.KINDS]
    assert not {kind.program for kind in jobs.KINDS if kind.compute} & scripts
    assert len({(k.program, k.script, k.imports) for k in jobs.KINDS}) == len(set(programs))


def test_settings_round_trip_and_are_frozen():
    s = jobs.settings_of("sweep_block", CONFIG, sweep="gelu")
    cls = jobs.KIND["sweep_block"].settings
    again = cls.from_dict(s.asdict())
    assert again == s and list(again.asdict()) == list(s.asdict())
    with pytest.raises(FrozenInstanceError):
        s.lr = 2.0
    with pytest.raises(TypeError):
        cls.from_dict({**s.asdict(), "learning_rat": 1.0})


def test_a_job_rebuilds_its_settings_from_its_params_alone():
    """What a job script does (``JobSettings.from_dict``, without its kind's class): the same fields in
    the same order, the same values, frozen, and every read tracked."""
    s = jobs.settings_of("spectral_threshold_cell", CONFIG, activation="gelu", d="300", delta="9.75")
    job = JobSettings.from_dict(s.asdict())
    assert job.asdict() == s.asdict() and list(job.asdict()) == list(s.asdict())
    assert job.field_names() == s.field_names() and job.reads() == set()
    assert (job.d, job.grad_tol) == (300, s.grad_tol) and job.reads() == {"d", "grad_tol"}
    with pytest.raises(FrozenInstanceError):
        job.d = 600
    assert JobSettings.from_dict({"a": [1, [2]]}).a == (1, (2,))  # YAML lists as tuples


def test_the_kinds_settings_classes_have_distinct_fields():
    """A job's read record is named by its fields alone (tests/conftest.py ``settings_reads``)."""
    classes = {kind.settings for kind in jobs.KINDS}
    assert len({cls.field_names() for cls in classes}) == len(classes)


def test_settings_merge_defaults_activation_tables_and_overrides():
    s = jobs.settings_of("sweep_block", CONFIG, sweep="gelu_m2")
    assert (s.lr, s.m, s.steps, s.dtype) == (2.0, 2, CONFIG["steps"]["gelu"], CONFIG["defaults"]["dtype"])
    assert s.origin["lr"] == "sweeps.gelu_m2.lr" and s.origin["steps"] == "steps.gelu"
    plateau = jobs.settings_of("hessian_cell", CONFIG, activation="quad")
    assert plateau.dtype == "float64" and plateau.lr == CONFIG["learning_rate"]["quad"]


def test_the_step_budget_grows_with_d_above_budget_scale_d():
    """steps·d/budget_scale_d above the reference d, the sweep's own budget at and below it (every
    quick-run cell), with the key in the origin only where it acts."""
    reference, steps = CONFIG["budget_scale_d"], CONFIG["steps"]["quad"]
    at = jobs.settings_of("sweep_block", CONFIG, sweep="quad", block="0", d=str(reference))
    above = jobs.settings_of("sweep_block", CONFIG, sweep="quad", block="0", d=str(4 * reference))
    odd = jobs.settings_of("sweep_block", CONFIG, sweep="quad", block="0", d=str(reference + 1))
    assert at.steps == steps and at.origin["steps"] == "steps.quad"
    assert above.steps == 4 * steps and above.origin["steps"] == ("steps.quad", "budget_scale_d")
    assert odd.steps == -(-steps * (reference + 1) // reference)  # rounded up
    fixed = {**CONFIG, "budget_scale_d": None}
    unscaled = jobs.settings_of("sweep_block", fixed, sweep="quad", block="0", d=str(4 * reference))
    assert unscaled.steps == steps


def test_unsupported_options_name_their_config_key():
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["defaults"]["loss_normalisation"] = "variance"
    assert jobs.settings_of("sweep_block", config, sweep="gelu").unsupported() == []  # GD sweeps implement it
    [(key, message)] = jobs.settings_of("hessian_cell", config, activation="gelu").unsupported()
    assert key == "defaults.loss_normalisation" and "the Plateau jobs" in message
    config["theory"]["models"]["quad"]["a"] = [1.0]
    keys = [k for k, _ in jobs.settings_of("dmft_model", config, model="quad").unsupported()]
    assert "theory.models.quad.a" in keys


def test_a_trained_second_layer_is_a_sweep_option_refused_elsewhere():
    """``train`` may be left out of ``defaults`` ([theta]); the sweeps (and the designs, below) take
    [theta, a, b], the theory and the restricted-GD jobs refuse it naming the key, and the schema
    refuses a train without theta."""
    from featlearn.pipeline.checks import schema_error

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    del config["defaults"]["train"]
    assert jobs.settings_of("sweep_block", config, sweep="gelu").train == ("theta",)
    config["sweeps"]["gelu"]["train"] = ["theta", "a", "b"]
    sweep = jobs.settings_of("sweep_block", config, sweep="gelu")
    assert sweep.train == ("theta", "a", "b") and sweep.unsupported() == []
    config["defaults"]["train"] = ["theta", "b"]
    [(key, message)] = jobs.settings_of("dmft_model", config, model="gelu").unsupported()
    assert key == "defaults.train" and "the TheoryModel jobs" in message
    assert jobs.settings_of("hessian_cell", config, activation="gelu").unsupported()[0][0] == "defaults.train"
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    bad = {**CONFIG, "defaults": {**CONFIG["defaults"], "train": ["a", "b"]}}
    assert schema_error(bad, schema).key == "defaults.train"


def test_huber_loss_is_a_sweep_and_designer_option_refused_elsewhere():
    from featlearn.pipeline.checks import schema_error

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["sweeps"]["gelu"]["huber"] = 1.0
    assert jobs.settings_of("sweep_block", config, sweep="gelu").huber == 1.0
    assert jobs.settings_of("sweep_block", config, sweep="gelu").unsupported() == []
    config["defaults"]["huber"] = 0.5
    [(key, message)] = jobs.settings_of("fixed_point_model", config, model="gelu").unsupported()
    assert key == "defaults.huber" and "designs" in message
    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert (
        schema_error({**CONFIG, "defaults": {**CONFIG["defaults"], "huber": 0}}, schema).key
        == "defaults.huber"
    )


def test_a_sweep_on_another_loss_than_the_square_loss_reads_no_kantorovich_safety():
    """``certify_safety`` is blanked in the settings of a sweep on Huber's loss or a config loss (the
    floor rule (M14) alone stops them), kept for the square loss, named or by default."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["losses"] = {"logcosh": "log(cosh(e))"}
    kept = jobs.settings_of("sweep_block", config, sweep="gelu").certify_safety
    assert kept is not None
    for edit, safety in (({"huber": 1.0}, None), ({"loss": "logcosh"}, None), ({"loss": "square"}, kept)):
        sweep = {**config["sweeps"]["gelu"], **edit}
        assert (
            jobs.settings_of(
                "sweep_block", {**config, "sweeps": {"gelu": sweep}}, sweep="gelu"
            ).certify_safety
            == safety
        )


def test_readme_figure_table_is_the_manifest():
    readme = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- manifest:start -->\n(.*?)\n<!-- manifest:end -->", readme, re.S).group(1)
    assert block == manifest.markdown_table(CONFIG, paper_only=True)


def test_memory_estimates_grow_with_the_arrays():
    small, large = (
        resources.gd_cell_mem_mb(250, 5.0, 2000, "float32"),
        resources.gd_cell_mem_mb(4000, 10.0, 2000, "float64"),
    )
    assert resources.BASE_MB < small < large
    assert large > 40000 * 4000 * 16 / 1e6  # X drawn in float64 and kept in float64
    assert resources.dmft_mem_mb(40000, 100) > 40000 * 101 * 102 / 2 * 8 / 1e6


def test_python_floor_matches_the_code():
    """The code uses tomllib and dataclass(kw_only=True): Python 3.11 is the floor."""
    floor = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["requires-python"]
    assert floor == ">=3.11"
    env = yaml.safe_load((ROOT / "envs" / "featlearn.yaml").read_text())
    assert "python>=3.11" in env["dependencies"]


def test_gd_runtime_bound_counts_steps_width_and_job_start():
    """Eq. of resources: JOB_START + steps·trials·(STEP_OVERHEAD + m·n·d·itemsize/BANDWIDTH)."""
    d, delta, steps, trials = 500, 4.0, 1000, 3
    per_step = resources.STEP_OVERHEAD + 2000 * 500 * 4 / resources.BANDWIDTH
    expected = resources.JOB_START + steps * trials * per_step
    assert resources.gd_cell_seconds(d, delta, "float32", steps, trials) == pytest.approx(expected)
    wide = resources.gd_cell_seconds(d, delta, "float32", steps, trials, m=4)
    assert wide - resources.JOB_START == pytest.approx(
        steps * trials * (resources.STEP_OVERHEAD + 4 * 2000 * 500 * 4 / resources.BANDWIDTH)
    )
    assert resources.gd_cell_seconds(d, delta, "float64", steps, trials) > expected


def test_expected_time_scales_the_nearest_measured_job():
    """plan eq. (E): same rule and family, same δ preferred; no counterpart: the upper bound."""
    from featlearn.pipeline.jobs import KIND, Job
    from featlearn.plan import Reference, expected_seconds

    start = resources.JOB_START

    def job(family, d, delta, seconds):
        cell = {"sweep": family, "d": str(d), "delta": f"{delta:g}"}
        return Job(KIND["sweep_block"], cell, None, 1, 100, seconds, "", "", "")

    measured = start + 10.0
    reference = Reference(
        [(job("gelu", 250, 5.0, start + 100.0), measured), (job("gelu", 250, 8.0, start + 1.0), 99.0)], 1.0
    )
    # same δ, four times the work: four times the measured time beyond the start
    assert expected_seconds(job("gelu", 500, 5.0, start + 400.0), reference) == pytest.approx(start + 40.0)
    # a δ never measured: the peer nearest in work (the δ = 5 cell), scaled
    assert expected_seconds(job("gelu", 500, 6.0, start + 200.0), reference) == pytest.approx(start + 20.0)
    # another sweep: nothing to scale from, the upper bound stands
    assert expected_seconds(job("quad", 500, 5.0, start + 400.0), reference) == start + 400.0


def test_a_schema_error_names_the_broken_bound_not_the_composite_keyword():
    """``defaults`` is checked through ``allOf`` + ``unevaluatedProperties``: a value out of its range
    must be reported at its own key with its bound, not as "Unevaluated properties are not allowed"."""
    from featlearn.pipeline.checks import schema_error

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    assert schema_error(CONFIG, schema) is None
    bad = {**CONFIG, "defaults": {**CONFIG["defaults"], "success_rho": 1.5}}
    error = schema_error(bad, schema)
    assert error.key == "defaults.success_rho" and "maximum of 1" in str(error)
    assert "Unevaluated" not in str(error)
    unknown = {**CONFIG, "defaults": {**CONFIG["defaults"], "learning_rat": 1.0}}
    assert schema_error(unknown, schema).key == "defaults" and "learning_rat" in str(
        schema_error(unknown, schema)
    )


@pytest.mark.parametrize(
    ("edit", "key", "message"),
    [
        ({"defaults": {"huber": -1}}, "defaults.huber", "null or a number > 0, got -1"),
        (
            {"defaults": {"train": ["a"]}},
            "defaults.train",
            "a list of theta, a, b without repeats containing 'theta', got ['a']",
        ),
        ({"defaults": {"loss": 3}}, "defaults.loss", "null or a string matching ^[A-Za-z0-9_]+$, got 3"),
        (
            {"learning_rate": {}},
            "learning_rate.quad",
            "no key gives it: set hessian.lr or learning_rate.quad",
        ),
    ],
)
def test_a_value_that_fits_no_alternative_is_one_line_naming_what_is_allowed(edit, key, message):
    """The three messages the reviews flagged: a value none of a key's alternatives accept reads what
    they allow and what was given (``checks.allowed``), and an emptied activation table names the
    missing entry and the key that could stand in for it, not a KeyError."""
    from featlearn.pipeline import checks

    schema = yaml.safe_load((ROOT / "workflow" / "schemas" / "config.schema.yaml").read_text())
    ((section, value),) = edit.items()
    config = {**CONFIG, section: value if section == "learning_rate" else {**CONFIG[section], **value}}
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(config, None, schema)
    assert error.value.key == key and str(error.value).startswith(f"config error at '{key}': ")
    assert str(error.value).endswith(message) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("key", "value", "accepting"),
    [
        ("train", ["theta", "a", "b"], {"sweep_block", "design_theory"}),
        ("huber", 1.0, {"sweep_block", "design_theory"}),
        ("loss", "logcosh", {"sweep_block", "design_theory"}),
    ],
)
def test_every_job_kind_that_does_not_implement_train_or_huber_refuses_it(key, value, accepting):
    """Set in ``defaults`` (the designer overlay included, so that its kinds are built), ``train``,
    ``huber`` and a loss other than the square loss are refused by every kind of job outside
    ``accepting`` that trains a model (the spectral method's overlap has none), naming
    ``defaults.<key>``."""
    from featlearn.pipeline import jobs

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    design = yaml.safe_load((ROOT / "workflow" / "configs" / "design.yaml").read_text())
    config = {**config, **design, "activations": {**config.get("activations", {}), **design["activations"]}}
    config["defaults"][key] = value
    refusing, accepted = set(), set()
    for job in jobs.compute_jobs(config):
        keys = [k for k, _ in job.settings.unsupported()]
        (refusing if f"defaults.{key}" in keys else accepted).add(job.kind.rule)
    assert accepted - {"spectral_overlap"} == accepting
    assert refusing and not refusing & accepting


def test_every_reference_pattern_matches_entries_of_some_config():
    """A ``checks.REFERENCES`` pattern that matched nothing would check nothing: each one matches an
    entry of config.yaml or of an overlay, and the entries it matches pass (they name what they must)."""
    from featlearn.pipeline import checks
    from featlearn.plan import load_config

    configs = [load_config([ROOT / "config.yaml"])] + [
        load_config([ROOT / "config.yaml", path])
        for path in sorted((ROOT / "workflow" / "configs").glob("*.yaml"))
        if path.name not in ("tiny.yaml", "paper.yaml")
    ]
    designed = load_config([ROOT / "config.yaml", ROOT / "workflow" / "configs" / "design.yaml"])
    designed["sweeps"]["gelu"]["design"] = next(
        iter(designed["design"]["designs"])
    )  # as design_sweeps writes
    configs.append(designed)
    for pattern, *_ in checks.REFERENCES:
        assert any(list(checks._entries(c, pattern.split("."))) for c in configs), pattern
    for config in configs:
        checks.references(config)


def test_a_table_reads_each_field_from_its_first_source_and_records_the_key():
    """``settings.build`` on a synthetic config: a convention comes from the section, else the
    activation's table (lr, steps), else ``defaults``, else its optional value; a key tuple takes its
    first present key; a fixed value has no origin; a function source sees the fields before it."""
    names = ("seed", "experiment", "activation", "lr", "steps", "m", "huber", "d", "twice")
    cls = settings_class("ToySettings", "a toy", names)
    config = {
        "seed": 7,
        "defaults": {"m": 1, "lr": 0.5},  # lr is no convention: defaults.lr is never read
        "learning_rate": {"relu": 2.0},
        "steps": {"relu": 10},
        "runs": {"a": {"activation": "relu", "m": 3}, "b": {"activation": "tanh"}},
    }
    sources = {
        "steps": ("runs.{run}.steps", "steps.{activation}"),
        "d": settings.fixed(100),
        "twice": lambda c, x: (2 * x["m"], ("runs", "m")),
    }
    table = {"conventions_from": "runs.{run}", "experiment": "run_{run}", "sources": sources}
    table = {"conventions_from": "runs.{run}", "experiment": "run_{run}", "sources": sources}
    a = settings.build(cls, config, {"run": "a"}, **table)
    assert a.asdict() == dict(zip(names, (7, "run_a", "relu", 2.0, 10, 3, None, 100, 6), strict=True))
    assert a.origin == {
        "seed": "seed",
        "activation": "runs.a.activation",
        "lr": "learning_rate.relu",
        "steps": "steps.relu",
        "m": "runs.a.m",
        "huber": "defaults.huber",
        "twice": ("runs", "m"),
    }
    with pytest.raises(KeyError, match="runs.b.lr, learning_rate.tanh"):  # tanh has no η anywhere
        settings.build(cls, config, {"run": "b"}, **table)
    assert settings.convention(config, "m", {"section": "runs.b"}) == (1, "defaults.m")


def test_no_compute_job_runs_the_master_s_declarations():
    """A compute job rebuilds its settings from its params (``featlearn.io.settings``) and imports
    nothing of ``featlearn.pipeline``: its code stamp leaves out the kinds, the config rules and the
    cost model, so declaring or editing a kind reruns no job (a changed value reruns its jobs through
    their params)."""
    reached = {
        kind.program: [
            m
            for m in module_names(*kernels.program_files(kind.program, ROOT))
            if m.startswith("featlearn.pipeline")
        ]
        for kind in jobs.KINDS
    }
    assert not {program: modules for program, modules in reached.items() if modules}
