"""The designer (docs/design.md): δ_NN(∞) by root finding against a brute-force sign check, the
family's evaluation through a generated kernel against the built-in activation, the table's
ranking and rank correlation, the config checks, and the two-pass overlay end to end on the tiny
config."""

import copy
import math
from types import SimpleNamespace

import numpy as np
import pytest
import yaml
from conftest import ROOT, SWISH, TINY, TINY_CONFIG, snakemake
from tiny_build import copy_workflow

from featlearn.analysis import design
from featlearn.io.results import read_csv
from featlearn.model.catalogue import substitute
from featlearn.pipeline import checks, jobs
from featlearn.theory.delta_nn import FixedPointMargin
from featlearn.theory.design import design_theory, dmft_grid, fixed_point_threshold
from featlearn.theory.design_family import evaluate

GELU = SimpleNamespace(activation="gelu", link="he2", a=1.0, b=0.0)
COARSE = -1
"""The fixed point's quadrature level here: every count halved (the root-finder's statuses and the
designer's consistency do not need the converged value; tests/test_prox_law.py checks that)."""

TINY_DESIGN = {
    "activations": {"swish": SWISH},
    "design": {
        "stem": "extra_design",
        "link": "he2",
        "search": {"bracket": [4.0, 16.0], "points": 6},
        "dmft": {"factors": [0.2, 0.5, 1.0], "n_paths": 400, "replicas": 2, "horizon": 4},
        "sweeps": {
            "best": 2,
            "worst": 1,
            "include": ["gelu_ab"],
            "d": [60],
            "trials": 2,
            "factors": [0.5, 1.0],
        },
        "designs": {
            "gelu": {"activation": "gelu"},
            "quad": {"activation": "quad"},
            "swish": {"activation": "swish", "lr": 1.0, "steps": 200},
            "gelu_ab": {"activation": "gelu", "train": ["theta", "a", "b"]},
        },
        "family": {"expression": "z*Phi(alpha*z)", "parameter": "alpha", "bounds": [0.8, 1.6], "xatol": 0.4},
    },
}


def with_design(config=TINY_CONFIG, **changes):
    out = copy.deepcopy(config) | copy.deepcopy(TINY_DESIGN)
    out["design"] |= changes
    return out


@pytest.mark.slow  # ~20 s on 2 cores
def test_the_threshold_is_where_the_margin_changes_sign():
    """Brent's root of the fixed point's margin: just below it no negative outlier, just above one
    (fresh solves, no warm start)."""
    out = fixed_point_threshold(GELU, COARSE, (4.0, 16.0), 6, log=lambda _: None)
    assert out["status"] == "ok" and 8.0 < out["delta_nn_inf"] < 11.0
    assert out["at_value"] < 1.0
    below = FixedPointMargin(GELU, COARSE)(out["delta_nn_inf"] - 0.01)
    above = FixedPointMargin(GELU, COARSE)(out["delta_nn_inf"] + 0.01)
    assert below[0] > 0 > above[0]
    assert np.isfinite(out["scan_margin"]).all() and out["scan_margin"].size == 6


@pytest.mark.slow
def test_a_failed_solve_inside_the_refinement_is_unsolved(monkeypatch):
    """A NaN margin inside the Brent interval (a fixed-point solve that fails there) gives status
    ``unsolved``, not an exception; a scan with failed solves and no negative margin too."""
    calls = {"n": 0}
    real = FixedPointMargin.__call__

    def failing_after_scan(self, delta):
        calls["n"] += 1
        return (np.nan, np.nan) if calls["n"] > 6 else real(self, delta)

    monkeypatch.setattr(FixedPointMargin, "__call__", failing_after_scan)
    out = fixed_point_threshold(GELU, COARSE, (4.0, 16.0), 6, log=lambda _: None)
    assert out["status"] == "unsolved" and math.isnan(out["delta_nn_inf"])
    calls["n"] = 4  # the last two scan points fail: no negative margin is seen
    out = fixed_point_threshold(GELU, COARSE, (2.0, 5.0), 4, log=lambda _: None)
    assert out["status"] == "unsolved"


@pytest.mark.slow
def test_statuses_without_a_crossing_in_the_bracket():
    """GeLU's crossing (≈ 9.1) lies above a bracket [2, 5] and below [12, 32]."""
    low = fixed_point_threshold(GELU, COARSE, (2.0, 5.0), 4, log=lambda _: None)
    high = fixed_point_threshold(GELU, COARSE, (12.0, 32.0), 4, log=lambda _: None)
    assert low["status"] == "none" and math.isnan(low["delta_nn_inf"])
    assert high["status"] == "below_bracket"
    assert dmft_grid(np.nan, [0.5, 1.0]) == [] and dmft_grid(8.0, [0.5, 1.0]) == [4.0, 8.0]


@pytest.mark.parametrize("train", [pytest.param(("theta", "a"), marks=pytest.mark.slow), ("theta", "a", "b")])
def test_a_trained_layer_design_has_no_long_time_threshold_and_an_anchored_dmft(train):
    """A design with a trained second layer: no δ_NN(∞) (status ``trained_layer``), its DMFT grid
    anchored at the fixed layer's δ_NN(∞) (the same fixed point, bit for bit), and a DMFT whose
    trained a^t (and b^t) move while an untrained b stays; at t = 0 (a and b at their start, the
    same paths) its law is the fixed layer's, so the outlier margins agree there exactly and part
    afterwards."""
    model = dict(seed=1, experiment="design_x", activation="gelu", link="he2", a=1.0, b=0.0, r0=1.0)
    model |= dict(noise=0.0, lr=1.0, huber=None, loss=None)
    args = (COARSE, (4.0, 16.0), 6, [0.5, 1.0], 400, 3, 2)
    fixed = design_theory(SimpleNamespace(**model, train=("theta",)), *args, log=lambda _: None)
    trained = design_theory(SimpleNamespace(**model, train=train), *args, log=lambda _: None)
    assert fixed["status"] == "ok" and fixed["grid_anchor"] == fixed["delta_nn_inf"]
    assert trained["status"] == "trained_layer" and math.isnan(trained["delta_nn_inf"])
    assert math.isnan(trained["at_value"]) and trained["grid_anchor_status"] == "ok"
    assert trained["grid_anchor"] == fixed["delta_nn_inf"]
    assert list(trained["dmft_delta"]) == dmft_grid(fixed["delta_nn_inf"], [0.5, 1.0])
    assert "dmft_a" not in fixed and trained["dmft_a_replicas"].shape == (2, 2, 4)
    assert (trained["dmft_a"][:, 0] == 1.0).all() and (trained["dmft_a"][:, 1] != 1.0).all()
    moved = trained["dmft_b"][:, 1:] != 0.0
    assert moved.all() if "b" in train else not moved.any()
    same, after = trained["dmft_margin_replicas"], fixed["dmft_margin_replicas"]
    np.testing.assert_array_equal(same[..., 0], after[..., 0])
    assert not np.allclose(same[..., 1:], after[..., 1:])


@pytest.mark.slow
def test_the_family_through_a_generated_kernel_matches_the_built_in_activation(tmp_path):
    """σ_α = zΦ(αz) at α = 1 is GeLU: its δ_NN(∞), computed in a fresh process through the
    generated kernel, equals the built-in one."""
    text = substitute("z*Phi(alpha*z)", "alpha", 1.0)
    assert text.replace(" ", "") == "z*Phi((1.0)*z)"
    got = evaluate(text, "he2", 1.0, 0.0, COARSE, (4.0, 16.0), 6, tmp_path)
    want = fixed_point_threshold(GELU, COARSE, (4.0, 16.0), 6, log=lambda _: None)
    assert got["status"] == "ok"
    assert got["delta_nn_inf"] == pytest.approx(want["delta_nn_inf"], abs=1e-3)


def rows(values, delta50=None, statuses=None, anchors=None):
    out = []
    for i, v in enumerate(values):
        status = (statuses or {}).get(i, "ok" if np.isfinite(v) else "none")
        anchor = (anchors or {}).get(i, v)
        row = {"design": f"d{i}", "delta_nn_inf": v, "long_time_status": status, "grid_anchor": anchor}
        if delta50 is not None:
            row |= {"delta50_d100": delta50[i], "delta50_d100_err": 0.1}
        out.append(row)
    return out


def test_ranking_sweeps_and_rank_correlation():
    table = rows([9.0, np.nan, 4.0, 6.0, 12.0])
    assert design.theory_ranking(table) == ["d2", "d3", "d0", "d4", "d1"]
    below = rows([9.0, np.nan, 4.0, np.nan], statuses={1: "below_bracket", 3: "unsolved"})
    assert design.theory_ranking(below) == ["d1", "d2", "d0", "d3"]  # below the bracket: lowest

    def swept(table, best, worst, include=()):
        return design.swept_designs(table, {"best": best, "worst": worst, "include": include})

    assert swept(below, 1, 1) == ["d2", "d0"]  # a sweep needs a value for its grid
    assert swept(table, 2, 1) == ["d2", "d3", "d4"]
    assert swept(table, 3, 2) == ["d2", "d3", "d0", "d4"]  # each once
    trained = rows([9.0, np.nan, 4.0], statuses={1: "trained_layer"}, anchors={1: 9.0})
    assert design.theory_ranking(trained) == ["d2", "d0", "d1"]  # no δ_NN(∞): ranked last
    assert swept(trained, 1, 0) == ["d2"] and swept(trained, 1, 0, ["d1", "d2"]) == ["d2", "d1"]
    assert swept(table, 1, 0, ["d1"]) == ["d2"]  # included, but no grid anchor: no sweep
    monotone = rows([4.0, 6.0, 9.0, 12.0], delta50=[3.0, 4.0, 7.0, 8.0])
    rho, p, count = design.rank_correlation(monotone, 100)
    assert rho == pytest.approx(1.0) and count == 4
    assert p == pytest.approx(2 / 24)  # exact: 2 of the 4! orderings are as extreme
    reversed_ = rows([4.0, 6.0, 9.0, 12.0], delta50=[8.0, 7.0, 4.0, 3.0])
    assert design.rank_correlation(reversed_, 100)[0] == pytest.approx(-1.0)
    assert design.rank_correlation(rows([4.0, 6.0]), 100)[2] == 0
    overlay = design.sweep_overlay(
        trained,
        ["d1"],
        {"d1": {"activation": "gelu", "train": ["theta", "a"]}},
        {"d": [50], "trials": 3, "factors": [0.5, 1.0]},
        "he2",
    )
    assert overlay["sweeps"]["design_d1"]["delta"] == [4.5, 9.0]  # the grid anchor's multiples
    assert overlay["sweeps"]["design_d1"]["train"] == ["theta", "a"]
    spec = {"d2": {"activation": "gelu"}, "d3": {"activation": "quad", "b": 0.5}}
    overlay = design.sweep_overlay(
        table, ["d2", "d3"], spec, {"d": [50], "trials": 3, "factors": [0.5, 1.0]}, "bump"
    )
    assert overlay["sweeps"]["design_d3"] == {
        "activation": "quad",
        "b": 0.5,
        "link": "bump",
        "design": "d3",
        "figure": "extra_phase_design_d3",
        "d": [50],
        "delta": [3.0, 6.0],
        "trials": 3,
    }


def test_design_jobs_and_their_checks():
    config = with_design()
    checks.check_config(config)
    cells = jobs.compute_jobs(config)
    theory = [j for j in cells if j.rule == "design_theory"]
    assert sorted(j.wildcards["design"] for j in theory) == ["gelu", "gelu_ab", "quad", "swish"]
    assert {j.wildcards["design"]: j.settings.train for j in theory}["gelu_ab"] == ("theta", "a", "b")
    assert {j.settings.link for j in theory} == {"he2"} and theory[0].settings.experiment.startswith(
        "design_"
    )
    assert [j.rule for j in cells].count("design_family") == 1
    bad = with_design(family={**TINY_DESIGN["design"]["family"], "expression": "z*Phi(beta*z)"})
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(bad)
    assert error.value.key == "design.family.expression" and "beta" in str(error.value)
    bad = with_design(family={**TINY_DESIGN["design"]["family"], "parameter": "z"})
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(bad)
    assert error.value.key == "design.family.parameter"
    # an unknown design; a design measured twice (reported at the later sweep)
    for sweep, name, key in (("design_gelu", "nosuch", "design_gelu"), ("quad", "gelu", "design_gelu")):
        bad = with_design()
        bad["sweeps"]["design_gelu"] = {**bad["sweeps"]["gelu"], "design": "gelu", "figure": "extra_x"}
        bad["sweeps"][sweep] = {**bad["sweeps"][sweep], "design": name}
        with pytest.raises(checks.ConfigError) as error:
            checks.check_config(bad)
        assert error.value.key == f"sweeps.{key}.design"
    bad = with_design(sweeps={**TINY_DESIGN["design"]["sweeps"], "include": ["nosuch"]})
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(bad)
    assert error.value.key == "design.sweeps.include.0" and "nosuch" in str(error.value)
    # a trained second layer needs an even link; the schema wants theta among the trained layers
    odd = with_design(link="g**3 - 3*g")
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(odd)
    assert error.value.key == "design.designs.gelu_ab.train" and "even link" in str(error.value)
    del odd["design"]["designs"]["gelu_ab"], odd["design"]["sweeps"]["include"]
    checks.check_config(odd)  # the same link without a trained layer passes
    schema = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
    bad = with_design(
        designs={**TINY_DESIGN["design"]["designs"], "x": {"activation": "gelu", "train": ["a"]}}
    )
    assert checks.schema_error(bad, schema).key == "design.designs.x.train"
    assert checks.schema_error(with_design(), schema) is None
    bad = with_design(designs={"x": {"activation": "swsh"}, "y": {"activation": "gelu"}})
    with pytest.raises(checks.ConfigError) as error:
        checks.check_config(bad)
    assert error.value.key == "design.designs.x.activation"


@pytest.mark.builds
def test_the_designer_runs_in_two_passes(tmp_path):
    """Pass 1: theory of every design, the family's minimum, the table and the sweep overlay; pass 2
    (the overlay given): GD sweeps of the chosen designs, their δ₅₀ and Spearman's ρ in the table."""
    work = copy_workflow(tmp_path, TINY)
    (work / "design.yaml").write_text(yaml.safe_dump(TINY_DESIGN))
    target = "results/tables/design.csv"
    overlay_path = "results/design/design_sweeps.yaml"
    snakemake(work, target, overlay_path, "--configfile", "config.yaml", "design.yaml")
    table = {r["design"]: r for r in read_csv(work / target)}
    family = next(k for k in table if k.startswith("family("))
    assert set(table) == {"gelu", "quad", "swish", "gelu_ab", family}
    assert (
        table["gelu"]["long_time_status"] == "ok"
        and table["quad"]["delta_nn_inf"] < table["gelu"]["delta_nn_inf"]
    )
    assert np.isfinite(table["gelu"]["delta_nn_min"])
    trained = table["gelu_ab"]
    assert trained["long_time_status"] == "trained_layer" and trained["train"] == "theta,a,b"
    assert trained["grid_anchor"] == table["gelu"]["delta_nn_inf"] and math.isnan(trained["delta_nn_inf"])
    ranked = [r["theory_rank"] for r in table.values() if np.isfinite(r["delta_nn_inf"])]
    assert trained["theory_rank"] > max(ranked)  # no δ_NN(∞): after every design that has one
    overlay = yaml.safe_load((work / "results/design/design_sweeps.yaml").read_text())
    assert len(overlay["sweeps"]) == 4 and overlay["sweeps"]["design_gelu_ab"]["train"] == ["theta", "a", "b"]
    assert all(name.startswith("design_") for name in overlay["sweeps"])
    snakemake(work, target, "--configfile", "config.yaml", "design.yaml", "results/design/design_sweeps.yaml")
    table = read_csv(work / target)
    measured = {r["design"] for r in table if np.isfinite(r["delta50_d60"])}
    assert measured and measured <= {spec["design"] for spec in overlay["sweeps"].values()}
    ranked = {r["design"] for r in table if np.isfinite(r["delta_nn_inf"])}
    assert {r["spearman_designs"] for r in table} == {len(measured & ranked)}  # not the trained layer
    by_name = {r["design"]: r for r in table}
    assert by_name["gelu_ab"]["delta50_d60_status"] != "not swept"  # its sweep ran and was read
    assert by_name["gelu_ab"]["delta50_d60_censored"] >= 0
    assert all(
        np.isfinite(r["delta50_d60_censored"]) == (r["delta50_d60_status"] != "not swept") for r in table
    )
    assert table[0]["spearman_d"] == 60
    assert (work / "results/figures/extra_design.png").exists()
