"""Exact reruns: a config edit changes the params of exactly the jobs whose code reads the edited key.

Three checks, from cheap to expensive:

* every leaf key of ``config.yaml``, of the tiny config and of each overlay (merged after
  ``config.yaml``, as ``--configfile config.yaml <overlay>`` does) is edited in turn, and the
  registries' params (``featlearn.pipeline.jobs.params_by_output`` for the compute jobs,
  ``featlearn.pipeline.result_rules.params_by_output`` for the tables and figures) change for
  exactly the jobs whose params come from that key (their ``origins``);
* ``tests/test_workflow.py::test_every_settings_field_is_read`` checks, on a tracked tiny build, that
  each job's code reads every field of its settings, so "its params come from the key" means "its
  code reads the key";
* the opt-in ``reruns`` check (``python -m pytest -m reruns``) edits every leaf key of the tiny
  config on a built tiny tree and asks Snakemake (``--detailed-summary``) which jobs it would rerun:
  exactly the registries' readers (compute jobs, tables and figures), the jobs the edit adds or
  whose inputs it changes, and what is computed from them.
"""

import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest
import yaml
from conftest import ROOT, TINY, summary_plan, with_swish

from featlearn.pipeline import checks, jobs, result_rules
from featlearn.pipeline import settings as typed
from featlearn.pipeline.checks import _walk
from featlearn.pipeline.config_edits import edited, leaf, param_changes, params_by_output, with_edit
from featlearn.plan import load_config

OVERLAYS = sorted((ROOT / "workflow" / "configs").glob("*.yaml"))
COMPLETE = {"tiny.yaml", "paper.yaml"}
"""Configs that stand alone (a --configfile replaces config.yaml); the others are overlays."""

EVERYTHING = {"seed"}
"""Keys that rerun every compute job on purpose: every random draw derives from ``seed``."""


def repartitions(key):
    """Keys read through a min(): a block's trials are min(trial_block, trials − first), so an edit of
    ``trial_block`` or of a sweep's ``trials`` can leave a reader (a cell's last block) unchanged;
    ``test_raising_trials_reruns_no_completed_block`` pins down what such an edit reruns."""
    parts = key.split(".")
    return key == "trial_block" or (len(parts) == 3 and parts[0] == "sweeps" and parts[2] == "trials")


def selects(key):
    """Keys that pick a row of an activation table (``learning_rate``, ``steps``): a sweep's activation.
    A table job that reads the row (the finite-size analysis prices new cells at the sweep's step
    budget) but not the activation itself keeps its params where the new row holds the same value."""
    parts = key.split(".")
    return len(parts) == 3 and parts[0] == "sweeps" and parts[2] == "activation"


def configs():
    """(name, config) of every config a user can build: complete configs and overlays on config.yaml."""
    out = [("config.yaml", load_config([ROOT / "config.yaml"]))]
    for path in OVERLAYS:
        paths = [path] if path.name in COMPLETE else [ROOT / "config.yaml", path]
        out.append((path.name, load_config(paths)))
    return out


def rejected(config):
    """Whether the config check rejects ``config`` (with its one-line error naming a key)."""
    try:
        checks.check_config(config)
    except checks.ConfigError:
        return True
    return False


DEFAULT_RUN_CONFIGS = ("config.yaml", "tiny.yaml")
"""The configs the default run edits key by key; the overlays' run is opt-in (-m slow)."""


@pytest.mark.parametrize(
    "name,config",
    [
        pytest.param(name, config, id=name, marks=() if name in DEFAULT_RUN_CONFIGS else pytest.mark.slow)
        for name, config in configs()
    ],
)
def test_an_edit_changes_the_params_of_exactly_the_jobs_that_read_the_key(name, config):
    failures, before = [], params_by_output(config)
    for key, _ in _walk(config):
        try:
            changed, readers, _, _ = param_changes(config, key, before)
        except (KeyError, ValueError, TypeError) as error:
            # the registry cannot build the edited config: the config check must reject it
            if not rejected(with_edit(config, key, edited(leaf(config, key)))):
                failures.append((key, f"the registry fails ({error!r}), the config check accepts it"))
            continue
        exact = changed <= readers if repartitions(key) or selects(key) else changed == readers
        if not exact:
            failures.append((key, sorted(changed ^ readers)[:3]))
    assert not failures, failures


def test_the_issue_examples_rerun_only_their_readers():
    """``defaults.record_points`` is read by the GD sweeps and the long run, not by the restricted-GD
    cells (Hessian, Fig 3, referee, escape), which record on their own grid; ``sweeps.quad.trials``
    only by the quad sweep's last blocks (with 10 trials in blocks of 10, an 11th adds a block)."""
    config = load_config([ROOT / "config.yaml"])
    changed, _, _, _ = param_changes(config, "defaults.record_points")
    rules = {o.split("/")[1] for o in changed}
    assert rules == {"sweeps", "grokking"}
    assert not any("/easy_hard/" in o for o in changed)  # it records on its own grid
    changed, _, added, _ = param_changes(config, "sweeps.quad.trials")  # 10 -> 11: a new block per cell
    quad = jobs.outputs(config, "sweep_block", sweep="quad")
    assert not changed and added == {o.replace("/block0", "/block1") for o in quad}


def test_raising_trials_reruns_no_completed_block():
    """A cell's trials run in blocks of ``trial_block``: raising ``trials`` changes the params of the
    last, partial block only (none when the cell ended on a full block) and adds blocks."""
    config = load_config([ROOT / "config.yaml"])
    size = config["trial_block"]
    config["sweeps"]["quad"]["trials"] = size + 2  # a full block and a partial one per cell
    quad = jobs.outputs(config, "sweep_block", sweep="quad")
    changed, _, added, removed = param_changes(config, "sweeps.quad.trials")
    assert changed == {o for o in quad if o.endswith("/block1.npz")} and not added and not removed
    config["sweeps"]["quad"]["trials"] = size  # one full block: one more trial adds a block
    changed, _, added, _ = param_changes(config, "sweeps.quad.trials")
    assert not changed and added == {
        o.replace("block0", "block1") for o in jobs.outputs(config, "sweep_block", sweep="quad")
    }


def test_seed_reruns_every_job_that_draws_on_purpose():
    """Every compute job with random draws reads ``seed``; the static fixed point has none, and the
    long run takes its draws from its dataset (which reads the seed).  Of the tables and figures,
    exactly those whose params carry a seed (the theory models' settings, the finite-size analysis's
    bootstrap) read it."""
    config = load_config([ROOT / "config.yaml"])
    changed, _, _, _ = param_changes(config, "seed")
    compute = set(jobs.params_by_output(config))
    drawless = set(jobs.outputs(config, "fixed_point_model")) | set(jobs.outputs(config, "grokking_run"))
    assert changed & compute == compute - drawless and EVERYTHING == {"seed"}
    tables = result_rules.params_by_output(config)
    assert changed - compute == {o for o, (params, _) in tables.items() if '"seed":' in json.dumps(params)}


# --- the opt-in check against Snakemake ---------------------------------------------------------------


def planned_jobs(tree, configfile):
    """{first output: job record} of the DAG ``configfile`` gives on the built ``tree``, each record
    with its current inputs and ``needrun`` (``tests/dag_dump.py --plan``); None for a config the
    schema or the checks reject."""
    out = configfile.with_suffix(".plan.json")
    dump = [sys.executable, ROOT / "tests" / "dag_dump.py", out, "--plan", "--configfile", configfile]
    if subprocess.run(dump, cwd=tree, capture_output=True).returncode != 0:
        return None
    return {job["output"]["_"][0]: job for job in json.loads(out.read_text())["jobs"] if job["output"]["_"]}


def expected_reruns(plan, recorded, changed):
    """The jobs (first outputs) Snakemake should schedule after an edit: those whose params the edit
    changes or that it adds (``changed``, from the registries), those whose input files differ from
    the ones they ran with (``recorded``: {output: inputs}, Snakemake's record of the built tree),
    those with an output the tree lacks (a figure's stem edited) and, transitively, every job that
    reads an output of one of them."""
    inputs = {first: set(job["input"]["_"]) for first, job in plan.items()}
    expected = (set(changed) & plan.keys()) | {o for o in plan if o in recorded and inputs[o] != recorded[o]}
    expected |= {o for o, job in plan.items() if not set(job["output"]["_"]) <= recorded.keys()}  # a new file
    frontier = set(expected)
    while frontier:
        written = {f for o in frontier for f in plan[o]["output"]["_"]}
        frontier = {o for o in plan if inputs[o] & written} - expected
        expected |= frontier
    return expected


@pytest.mark.reruns
def test_snakemake_reruns_exactly_the_readers_of_every_tiny_key(tiny_run, tmp_path):
    """Every leaf key of the tiny config edited on the built tiny tree: Snakemake schedules exactly
    the jobs, compute, table and figure alike, whose params read the key (both registries), the jobs
    the edit adds or whose inputs it changes, and what is computed from them."""
    config = yaml.safe_load(TINY.read_text())
    keys = [key for key, _ in _walk(config)]
    recorded = {o: row[2] for o, row in summary_plan(tiny_run, tiny_run / "config.yaml").items()}

    def check(key):
        edit = with_edit(config, key, edited(leaf(config, key)))
        # each edit is a file named config.yaml, the name the manuscript records (its config_name),
        # with the keys in their order (the claims list the Hessian activations in config order)
        path = tmp_path / key / "config.yaml"
        path.parent.mkdir()
        path.write_text(yaml.safe_dump(edit, sort_keys=False))
        plan = planned_jobs(tiny_run, path)
        if plan is None:
            return key, "rejected", None
        changed, _, added, _ = param_changes(config, key)
        expected = expected_reruns(plan, recorded, changed | added)
        scheduled = {o for o, job in plan.items() if job["needrun"]}
        return (
            key,
            "ok" if scheduled == expected else "mismatch",
            [sorted(scheduled - expected), sorted(expected - scheduled)],
        )

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(check, keys))
    report = tmp_path / "reruns.json"
    report.write_text(json.dumps(results, indent=1))
    mismatches = [r for r in results if r[1] == "mismatch"]
    rejected = [r[0] for r in results if r[1] == "rejected"]
    exact = len(keys) - len(mismatches) - len(rejected)
    print(f"{len(keys)} keys: {exact} exact, {len(rejected)} rejected edits")
    assert not mismatches, mismatches
    assert len(rejected) < len(keys) // 4, rejected


@pytest.mark.reruns
def test_adding_a_config_activation_reruns_no_built_job(tiny_run, tmp_path):
    """On a built tiny tree, a config that adds the activation swish (``activations:``) and a sweep
    of it schedules no built compute job and no built numba cache: what is to run upstream of the
    tables is swish's generated kernel, its numba cache and its sweep's blocks."""
    from featlearn.pipeline.kernels import kernel_tag

    config = with_swish(yaml.safe_load(TINY.read_text()))
    path = tmp_path / "swish.yaml"
    path.write_text(yaml.safe_dump(config))
    rows = summary_plan(tiny_run, path)
    assert rows is not None, "the config with swish was rejected"
    kernels = {"model_kernel", "numba_cache", "model_numba_cache"}
    upstream = {kind.rule for kind in jobs.KINDS} | kernels
    scheduled = {o for o, (rule, plan, _) in rows.items() if rule in upstream and plan != "no update"}
    tag = kernel_tag(config, "swish")
    swish = {f"results/.kernels/{tag}.py", f"results/.numba_cache/{tag}/run_cell.ready"}
    assert scheduled == swish | set(jobs.outputs(config, "sweep_block", sweep="swish"))


SCALING = ROOT / "workflow" / "configs" / "scaling.yaml"


def test_the_scaling_overlay_reuses_every_block_of_the_quick_run():
    """Each block the quick run builds for the scaled sweeps keeps its output and its params under
    ``scaling.yaml``, so only the new blocks run: trials 11–30 of each quick cell (blocks 1 and 2) and
    every block of the new cells (d = 2000, 4000 and their delta_at grids)."""
    quick_config = load_config([ROOT / "config.yaml"])
    quick = jobs.params_by_output(quick_config)
    scaled_config = load_config([ROOT / "config.yaml", SCALING])
    scaled = jobs.params_by_output(scaled_config)
    names = yaml.safe_load(SCALING.read_text())["sweeps"]
    reused = [o for o in quick if o.startswith("results/sweeps/") and o.split("/")[2] in names]
    assert reused and all(scaled[o][0] == quick[o][0] for o in reused)
    new = scaled.keys() - quick.keys()
    blocks = len(typed.sweep_blocks(scaled_config, "gelu"))
    quick_cells = {o.rsplit("/", 1)[0] for o in reused}
    scaled_cells = {o.rsplit("/", 1)[0] for o in new}
    assert len(new) == len(quick_cells) * (blocks - 1) + len(scaled_cells - quick_cells) * blocks
    assert all(o.startswith("results/sweeps/") for o in new)


@pytest.mark.reruns
def test_a_larger_config_reuses_the_built_blocks_by_job_count(tiny_run, tmp_path):
    """On a built tiny tree, an overlay that adds a dimension (with its own delta grid) to a sweep
    schedules exactly the new cells' blocks: Snakemake's count of sweep_block jobs to run equals the
    number of new cells, and no built block reruns."""
    config = yaml.safe_load(TINY.read_text())
    config["sweeps"]["gelu"] |= {"d": [60, 80], "delta_at": {80: [8.0]}}
    path = tmp_path / "larger.yaml"
    path.write_text(yaml.safe_dump(config))
    rows = summary_plan(tiny_run, path)
    assert rows is not None, "the larger config was rejected"
    scheduled = {o for o, (rule, plan, _) in rows.items() if rule == "sweep_block" and plan != "no update"}
    built = {o for o, (rule, plan, _) in rows.items() if rule == "sweep_block" and plan == "no update"}
    assert scheduled == {"results/sweeps/gelu/d80_delta8/block0.npz"}
    assert len(built) == len(jobs.outputs(load_config([TINY]), "sweep_block"))
