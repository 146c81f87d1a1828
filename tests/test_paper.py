"""The reproduction manuscript: no result number typed into its source, no reference word printed
twice, numbers written without exponents, and the claim verdicts (each reachable, tolerances from
the config)."""

import math
import re
from pathlib import Path

import pytest
import yaml

from featlearn.analysis import claims
from featlearn.analysis.manuscript_numbers import fmt, performance

ROOT = Path(__file__).resolve().parents[1]


def prose_digits(source):
    """Digits left in a typst source once comments, layout (``set``/``let``/``if`` lines, lengths
    such as 10pt or 1.4fr, ``columns:``, default strings), names with digits (fig1_…), math
    ($…$), figure references ("Fig 4", "Figs 7 and 8") and the paper's citation (year, arXiv id)
    are taken out."""
    text = re.sub(r"//[^\n]*", "", source)
    text = re.sub(r"(?m)^\s*#?(set|let|if) .*$", "", text)
    text = re.sub(r"\d+(\.\d+)?(pt|cm|mm|em|fr|%)", "", text)
    text = re.sub(r"columns: \d+|default: \"\d*\"|\.len\(\) == \d+", "", text)
    text = re.sub(r"\w*[A-Za-z_]\d\w*|\w*\d[A-Za-z_]\w*", "", text)
    text = re.sub(r"\$[^$]*\$", "", text)
    text = re.sub(r"Figs? \d+[ab]?( and \d+[ab]?)?", "", text)
    text = re.sub(r"arXiv:\d{4}\.\d{5}|\b2026\b", "", text)
    return re.findall(r"\d+(?:\.\d+)?", text)


def test_no_result_number_is_typed_into_the_manuscript():
    sources = list((ROOT / "paper").glob("*.typ"))
    assert sources
    for path in sources:
        assert prose_digits(path.read_text()) == [], path


def test_the_digit_check_catches_a_typed_number():
    assert prose_digits("GeLU reaches δ ≈ 6.0 at d = 1000") == ["6.0", "1000"]
    assert prose_digits("see Fig 4 and $y = z^2 - 1$ // 3.6 in a comment") == []


WORD_BEFORE_REFERENCE = re.compile(r"\b(Section|Sections|Sec\.|Figure|Fig\.|Table|Equation|Eq\.)\s+@")


def test_no_reference_is_preceded_by_its_own_supplement():
    """A typst reference ``@label`` prints its supplement ("Section 4"): a word typed before it
    prints twice ("Section Section 4")."""
    for path in (ROOT / "paper").glob("*.typ"):
        assert WORD_BEFORE_REFERENCE.findall(path.read_text()) == [], path
    assert WORD_BEFORE_REFERENCE.findall("the verdicts in Section @claims") == ["Section"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2810.4, "2810"),
        (999.7, "1000"),
        (-12345.0, "-12345"),
        (6.0, "6"),
        (6.123, "6.12"),
        (0.01234, "0.0123"),
        (math.nan, "—"),
        (None, "—"),
    ],
)
def test_manuscript_numbers_have_no_exponent_for_large_values(value, text):
    assert fmt(value) == text


def test_memory_and_time_print_without_exponent():
    perf = performance([("a.tsv", 75000.0, 2810.4), ("b.tsv", 60.0, 120.0)])
    assert perf == {"jobs": "2", "cpu_minutes": "1251", "peak_rss_mb": "2810"}


def _results(thresholds=(), delta_alg=(), **tables):
    data = {"thresholds.csv": list(thresholds), "delta_alg.csv": list(delta_alg), **tables}
    return claims.Results(lambda name: data.get(name, []), None)


def _fit(sweep, d, value, error, scale=0.5, link="he2", interval=None):
    low, high = interval or (value - 2 * error, value + 2 * error)
    return {
        "sweep": sweep,
        "d": d,
        "threshold": value,
        "threshold_err": error,
        "threshold_low": low,
        "threshold_high": high,
        "scale": scale,
        "status": "ok",
        "link": link,
    }


TOL = yaml.safe_load((ROOT / "config.yaml").read_text())["claims"]["tolerance"]


@pytest.mark.parametrize(
    ("value", "error", "verdict"),
    [
        (6.1, 0.1, claims.REPRODUCED),
        (6.5, 0.1, claims.PARTLY),
        (7.5, 0.1, claims.NOT_REPRODUCED),
        (7.0, 0.6, claims.REPRODUCED),
        (math.nan, 0.1, claims.NOT_TESTED),
    ],
)
def test_closeness_reaches_every_verdict(value, error, verdict):
    assert claims.closeness(value, error, 6.0, 0.3) == verdict


def test_closeness_reads_the_side_of_an_asymmetric_interval_towards_the_target():
    """δ₅₀ = 4.12 with profile interval [3.59, 4.31] (Quad at d = 4000): 3.6 lies inside on the long
    side, 4.5 outside on the short one, though both are 0.4–0.5 from the value."""
    interval = (3.59, 4.31)
    assert claims.closeness(4.12, 0.11, 3.65, 0.1, interval) == claims.REPRODUCED
    assert claims.closeness(4.12, 0.11, 4.55, 0.1, interval) == claims.NOT_REPRODUCED  # 0.43 > 2·0.19
    assert claims.closeness(4.12, 0.11, 4.45, 0.1, interval) == claims.PARTLY
    assert claims.closeness(4.12, 0.11, 4.3, 0.1, (3.59, math.nan)) == claims.REPRODUCED  # open: 2σ
    assert claims.closeness(4.12, 0.11, 4.45, 0.1, (3.59, math.nan)) == claims.PARTLY


def test_every_verdict_but_undetermined_is_reachable_for_the_threshold_claim_and_follows_the_tolerance():
    seen = set()
    for value in (6.1, 6.5, 8.0):
        row = claims.claim_threshold(
            _results([_fit("gelu", 1000, value, 0.05)]), TOL, "gelu", 6.0, "gelu_threshold", "GeLU"
        )
        seen.add(row["verdict"])
    seen.add(claims.claim_threshold(_results([]), TOL, "gelu", 6.0, "gelu_threshold", "GeLU")["verdict"])
    assert seen == set(claims.VERDICTS) - {claims.UNDETERMINED}
    results = _results([_fit("gelu", 1000, 6.5, 0.05)])
    loose = {**TOL, "gelu_threshold": 0.6}
    assert (
        claims.claim_threshold(results, TOL, "gelu", 6.0, "gelu_threshold", "GeLU")["verdict"]
        == claims.PARTLY
    )
    assert (
        claims.claim_threshold(results, loose, "gelu", 6.0, "gelu_threshold", "GeLU")["verdict"]
        == claims.REPRODUCED
    )


def test_sharpening_and_width_claims_use_common_d():
    fits = [
        _fit("gelu", 250, 6.0, 0.1, scale=0.8),
        _fit("gelu", 1000, 6.5, 0.1, scale=0.2),
        _fit("gelu_m4", 250, 3.0, 0.1),
    ]
    row = claims.claim_sharpening(_results(fits), TOL, ["gelu"])
    assert row["verdict"] == claims.REPRODUCED  # 0.2/0.8 ≤ 0.8
    width = claims.claim_width(_results(fits), TOL, [("gelu", "gelu_m4")])
    assert width["verdict"] == claims.REPRODUCED and "(d = 250)" in width["measured"]
    assert claims.claim_width(_results(fits[:2]), TOL, [("gelu", "gelu_m4")])["verdict"] == claims.NOT_TESTED


def test_all_or_some():
    assert claims.all_or_some([True, True]) == claims.REPRODUCED
    assert claims.all_or_some([True, False]) == claims.PARTLY
    assert claims.all_or_some([False, False]) == claims.NOT_REPRODUCED
    assert claims.all_or_some([None, None]) == claims.NOT_TESTED
    assert claims.all_or_some([True, None]) == claims.PARTLY  # a part not tested is not a pass


def test_every_tolerance_in_the_config_is_used_by_a_claim():
    source = (ROOT / "src" / "featlearn" / "analysis" / "claims.py").read_text()
    for key in TOL:
        assert f'"{key}"' in source, key


def test_claim_texts_have_no_exponent_for_large_values():
    cells = [
        {"escaped": 5, "d": 1000, "delta": 5.0, "escape_step_median": 2810.0},
        {"escaped": 5, "d": 1000, "delta": 7.0, "escape_step_median": 40.0},
    ]
    row = claims.claim_escape_time(_results(**{"gelu_cells.csv": cells}), TOL, "gelu")
    assert "median escape step 2810 at δ=5" in row["measured"] and "e+" not in row["measured"]


def test_the_results_index_lists_each_table_once_with_its_own_caption_and_shape():
    from featlearn.analysis.manuscript_numbers import results_index
    from featlearn.pipeline import manifest

    config = yaml.safe_load((ROOT / "workflow" / "configs" / "tiny.yaml").read_text())
    groups = [
        {"table": table.name, "caption": table.caption, "empty": table.empty, "files": names}
        for table, names in manifest.tables(config)
        if table.name.endswith(".csv")
    ]
    rows = {name: [{"a": 1.0, "b": 2.0}] * 2 for group in groups for name in group["files"]}
    rows["gelu_cells.csv"] = []
    index = {r["table"]: r for r in results_index(groups, rows)}
    assert len(index) == len(groups)  # one entry per table, the per-sweep ones grouped
    decide = next(g for g in groups if g["table"] == "finite_size_decide.csv")
    rows["finite_size_decide.csv"] = []  # empty: its reason in place of the caption
    empty = {r["table"]: r for r in results_index(groups, rows)}["finite_size_decide.csv"]
    assert empty["rows"] == "0" and empty["caption"] == f"Empty in this build: {decide['empty']}"
    rows["theory_thresholds.csv"] = []  # empty without a reason: left out
    assert "theory_thresholds.csv" not in {r["table"] for r in results_index(groups, rows)}
    assert index["theory_thresholds.csv"]["caption"] == manifest.caption_of(config, "theory_thresholds.csv")
    assert index["theory_thresholds.csv"]["caption"] != manifest.caption_of(config, "gelu_thresholds.csv")
    cells = index["{sweep}_cells.csv"]
    sweeps = list(config["sweeps"])
    assert cells["rows"] == str(2 * (len(sweeps) - 1)) and cells["columns"] == "2"
    assert cells["caption"].endswith(f"Files: {', '.join(f'{s}_cells.csv' for s in sweeps)}.")
    assert index["escape_signal.csv"] == {
        "table": "escape_signal.csv",
        "caption": manifest.caption_of(config, "escape_signal.csv"),
        "rows": "2",
        "columns": "2",
    }


def _summary(status, low, high, delta_nn=9.5, n_d=5):
    return {
        "model": "gelu",
        "sweep": "gelu",
        "n_d": n_d,
        "d_used": "250,500,1000,2000,4000"[: 4 * n_d],
        "d_max": 4000.0,
        "slope": 0.26,
        "slope_low": 0.2,
        "slope_high": 0.32,
        "delta50_d_max": 7.18,
        "delta50_d_max_low": 7.05,
        "delta50_d_max_high": 7.31,
        "limit_status": status,
        "delta_inf_low": low,
        "delta_inf_high": high,
        "delta_nn_long_time": delta_nn,
    }


def test_the_limit_claim_is_undetermined_by_finite_d_whatever_the_limit_laws_say():
    """(F16): no finite d decide a d → ∞ limit, so claim 14 is undetermined whatever the limit laws
    give, an interval identified within them that contains δ_NN(∞) or one that misses it, no
    identification, or too few d for them; not tested without a measured δ₅₀.  The text states δ₅₀
    at the largest d against δ_NN(∞), every limit-law statement labelled as conditional on those
    laws, and no number for a limit they do not identify."""
    tol = {**TOL, "finite_size": 0.5}

    def verdict(*args, **kwargs):
        row = claims.claim_limit(_results(**{"finite_size_summary.csv": [_summary(*args, **kwargs)]}), tol)
        return row["verdict"], row["measured"]

    for args, kwargs in (
        (("identified", 8.8, 9.2), {}),
        (("identified", 8.0, 8.6), {}),
        (("not identified", math.nan, math.nan), {}),
        (("not tested", math.nan, math.nan), {"n_d": 3}),
    ):
        result, text = verdict(*args, **kwargs)
        assert result == claims.UNDETERMINED, args
        assert "at d = 4000 δ₅₀ = 7.18 [7.05, 7.31], δ_NN^RS(∞) − δ₅₀ = 2.3 [2.2, 2.5]" in text
        assert (
            "not determined by d ≤ 4000 whatever the law" in text and "0.26 [0.2, 0.32] per doubling" in text
        )
    _, text = verdict("not identified", math.nan, math.nan)
    assert "the power and log laws do not identify it either" in text and "δ∞" not in text
    _, text = verdict("identified", 8.8, 9.2)  # an interval in the row is not quoted (it under-covers)
    assert "the power and log laws alone would identify it" in text
    assert "δ∞ ∈" not in text and "8.8" not in text and "9.2" not in text
    _, text = verdict("not tested", math.nan, math.nan, n_d=3)
    assert "the limit laws judge no limit with 3 d" in text
    assert claims.claim_limit(_results(), tol)["verdict"] == claims.NOT_TESTED
    missing = _summary("not tested", math.nan, math.nan, n_d=0) | {"delta50_d_max": math.nan}
    assert claims.claim_limit(_results(**{"finite_size_summary.csv": [missing]}), tol)["verdict"] == (
        claims.NOT_TESTED
    )


def test_threshold_claims_never_quote_a_limit():
    """The threshold claims say whether the power and log laws identify δ∞, never a number for it
    (their interval covers random limits outside the laws in 83 % of cases, docs/finite_size.md)."""
    fits = [_fit("gelu", 1000, 6.7, 0.1)]
    for status, low, high, expected in (
        ("not identified", math.nan, math.nan, "the power and log laws do not identify it either"),
        ("identified", 8.8, 9.9, "the power and log laws alone would identify it"),
    ):
        summary = _summary(status, low, high)
        row = claims.claim_threshold(
            _results(fits, **{"finite_size_summary.csv": [summary]}),
            TOL,
            "gelu",
            6.0,
            "gelu_threshold",
            "GeLU",
        )
        assert (
            expected in row["measured"] and "not determined by d ≤ 4000 whatever the law" in row["measured"]
        )
        assert "δ∞ ∈" not in row["measured"] and "8.8" not in row["measured"]


def test_the_dmft_claim_judges_the_error_with_its_combined_standard_error():
    rows = [
        {"norm2_max_err_rel": 0.25, "norm2_err_se_rel": 0.15, "train_loss_max_err_rel": 0.05},
        {"norm2_max_err_rel": 0.02, "norm2_err_se_rel": 0.01, "train_loss_max_err_rel": 0.03},
    ]
    row = claims.claim_dmft(_results(**{"dmft_vs_simulation.csv": rows}), TOL)
    assert row["verdict"] == claims.REPRODUCED and "0.25 ± 0.15" in row["measured"]  # 0.25 ≤ 2·0.15
    rows[0]["norm2_err_se_rel"] = 0.05
    assert (
        claims.claim_dmft(_results(**{"dmft_vs_simulation.csv": rows}), TOL)["verdict"] != claims.REPRODUCED
    )


def test_finite_size_numbers_write_open_sides_and_what_would_decide():
    from featlearn.analysis import manuscript_numbers as mn

    assert mn._interval(4.12, 3.59, 4.31) == "4.12 [3.59, 4.31]"
    assert mn._interval(math.inf, 3.81, math.nan) == "∞ [3.81, ∞]"  # a limit law at its no-limit end
    assert mn._interval(math.nan, math.nan, math.nan) == "—"
    row = {"decide_core_hours": 129600.0, "decide_d_max": 32000.0, "decide_trials": 100.0}
    row |= {"decide_mem_mb": 148000.0, "width_exponent_low": 0.125, "width_exponent_high": 0.57}
    text = mn.decide_text(row)
    assert "80 % power at every width exponent μ in [0.12, 0.57]" in text
    assert "d up to 32000 with 100 trials per cell: 129600 core-hours and 148 GB per job" in text
    none = {"decide_core_hours": math.nan, "decide_searched_d_max": 256000.0, "decide_best_power": 0.61}
    assert mn.decide_text(none).startswith(
        "no design up to d = 256000"
    ) and "best reaches 61 %" in mn.decide_text(none)
    assert mn.decide_text({"decide_core_hours": math.nan, "decide_searched_d_max": math.nan}) == ""


def test_threshold_claim_states_its_d_and_where_the_verdict_changes():
    """Claims 2 and 3 compare at every measured d: δ₅₀ rising from 6.05 (d = 250) to 6.9 (d = 1000)
    reads reproduced at the smaller d and not reproduced at 1000, so the verdict is partly and the text
    names each d's verdict; a verdict common to every d is stated with the d range."""
    rising = [_fit("gelu", 250, 6.05, 0.1), _fit("gelu", 500, 6.3, 0.1), _fit("gelu", 1000, 6.9, 0.1)]
    row = claims.claim_threshold(_results(rising), TOL, "gelu", 6.0, "gelu_threshold", "GeLU")
    assert row["verdict"] == claims.PARTLY and "depends on d" in row["measured"]
    assert "(d = 250): reproduced" in row["measured"] and "(d = 1000): not reproduced" in row["measured"]
    flat = [_fit("gelu", 250, 6.05, 0.1), _fit("gelu", 1000, 6.1, 0.1)]
    row = claims.claim_threshold(_results(flat), TOL, "gelu", 6.0, "gelu_threshold", "GeLU")
    assert (
        row["verdict"] == claims.REPRODUCED and "reproduced at every d measured, 250–1000" in row["measured"]
    )


def test_law_rows_never_print_a_limit():
    """The manuscript's law table: the constant law's level is labelled "constant", and "constant
    rejected" where the analysis left it out (NaN); a limit law's δ∞ is never a number, even where
    the row carries one and the model's δ∞ is identified: the status instead."""
    from featlearn.analysis import manuscript_numbers as mn

    def law(name, value, low, high, key="delta_inf"):
        return {"model": "quad", "law": name, "delta_aicc": 0.0, "lr_p": 0.5, "gof_p": 0.4}, {
            "delta_inf": math.nan,
            "level": math.nan,
            key: value,
            f"{key}_low": low,
            f"{key}_high": high,
            "loo_status": "too few d (2)",
            "d_left_out": 1000.0,
        }

    rows = [a | b for a, b in (law("constant", 6.5, 6.27, 6.74, "level"), law("power", 4.07, 3.8, math.nan))]
    for status, expected in (("not tested", "δ∞ not tested"), ("identified", "δ∞ identified")):
        out = mn.finite_size_rows(rows, [{"model": "quad", "limit_status": status}])
        assert out[0]["delta_inf"] == "constant 6.5 [6.27, 6.74]"
        assert out[1]["delta_inf"] == expected
    rejected = [a | b for a, b in (law("constant", math.nan, math.nan, math.nan, "level"),)]
    assert mn.finite_size_rows(rejected, [{"model": "quad", "limit_status": "identified"}])[0][
        "delta_inf"
    ] == ("constant rejected")


def test_the_theory_threshold_claim_names_the_rs_number_its_error_and_state():
    """Claim 4 reads δ_NN^RS(∞) with its numerical error (which widens the agreement) and says which
    state it describes."""
    row = {
        "model": "gelu",
        "delta_nn_long_time": 9.127,
        "long_time_numerical_error": 2e-6,
        "long_time_state": "marginal",
    }
    got = claims.claim_theory_threshold(
        _results(**{"theory_thresholds.csv": [row]}), {"theory_threshold": 0.5}, {"gelu": 6.0}
    )
    assert got["verdict"] == claims.NOT_REPRODUCED
    assert "δ_NN^RS(∞) = 9.127 ± 2e-06" in got["measured"] and "RS state marginal" in got["measured"]
    wide = _results(**{"theory_thresholds.csv": [row | {"long_time_numerical_error": 2.0}]})
    assert (
        claims.claim_theory_threshold(wide, {"theory_threshold": 0.5}, {"gelu": 6.0})["verdict"]
        == claims.REPRODUCED
    )


def test_plateau_threshold_rows_write_a_limit_only_where_the_laws_identify_it():
    """The manuscript's δ_NN^GD row at d = ∞: the interval labelled as conditional on the approach
    laws where (O21) identifies it under them, else the status and no number."""
    from featlearn.analysis import manuscript_numbers as mn

    base = {"activation": "gelu", "d": "inf", "delta_spec": math.nan, "delta_spec_low": math.nan}
    base |= {"delta_spec_high": math.nan, "delta_nn_rs": 9.13}
    identified = base | {"delta_nn_gd": 9.9, "delta_nn_gd_low": 9.7, "delta_nn_gd_high": 10.5}
    identified["limit_status"] = "identified under the laws"
    undetermined = base | dict.fromkeys(("delta_nn_gd", "delta_nn_gd_low", "delta_nn_gd_high"), math.nan)
    undetermined["limit_status"] = "undetermined (2 d: no law can be rejected)"
    out = mn.plateau_threshold_rows([identified, undetermined])
    assert (
        out[0]["d"] == "∞"
        and out[0]["delta_nn_gd"] == "9.9 [9.7, 10.5] (under the laws d^−1, d^−2/3, d^−1/2)"
    )
    assert out[1]["delta_nn_gd"] == "undetermined (2 d: no law can be rejected)"
