"""Result files: CSV tables round-trip their types; npz cells keep their provenance."""

import numpy as np

from featlearn.io.results import load_npz, read_csv, save_npz, stack_runs, write_csv


def test_csv_round_trips_booleans_numbers_and_strings(tmp_path):
    rows = [
        {"converged": False, "negative_aligned": True, "delta": 6.5, "trials": 8, "status": "firth"},
        {"converged": True, "negative_aligned": False, "delta": 1e-7, "trials": 2, "status": "ok"},
    ]
    write_csv(tmp_path / "t.csv", rows)
    back = read_csv(tmp_path / "t.csv")
    assert back[0]["converged"] is False and back[0]["negative_aligned"] is True
    assert not back[0]["converged"]  # a boolean, not the truthy string "False"
    assert back[1]["delta"] == 1e-7 and back[0]["trials"] == 8.0 and back[1]["status"] == "ok"


def test_npz_keeps_arrays_and_provenance(tmp_path):
    save_npz(tmp_path / "c.npz", {"x": np.arange(3)}, {"params": {"d": 5}})
    arrays, record = load_npz(tmp_path / "c.npz")
    np.testing.assert_array_equal(arrays["x"], np.arange(3))
    assert record["params"] == {"d": 5}


def test_stack_runs_puts_runs_on_the_leading_axis():
    out = stack_runs([{"a": np.zeros(3), "b": 1}, {"a": np.ones(3), "b": 2}], d=7)
    assert out["a"].shape == (2, 3) and list(out["b"]) == [1, 2] and out["d"] == 7


def test_npz_bytes_depend_on_the_content_only(tmp_path):
    arrays = {"x": np.arange(5.0), "flag": True}
    save_npz(tmp_path / "a.npz", arrays, {"params": {"d": 5}})
    import time

    time.sleep(2.1)  # zip timestamps have a 2-second resolution
    save_npz(tmp_path / "b.npz", arrays, {"params": {"d": 5}})
    assert (tmp_path / "a.npz").read_bytes() == (tmp_path / "b.npz").read_bytes()


class Params(dict):
    """Snakemake's params as a job sees them: by attribute and by ``items()``."""

    __getattr__ = dict.__getitem__


def test_a_cell_job_calls_its_function_with_the_cell_and_stores_its_provenance(tmp_path):
    """``io.cells.run_cell_job``: the settings from the params, the numeric wildcards that are not
    settings fields as numbers (d an int, δ a float; the activation and the settings' own d left
    out), the arrays saved with the cell and the settings as their params; a param of the kind besides
    the common ones (``JOB_PARAMS``) reaches the function as a keyword argument."""
    from types import SimpleNamespace

    from featlearn.io.cells import named_function, run_cell_job

    calls, lines = [], []

    def compute(settings, log, m0=None, **cell):
        calls.append(cell | ({"m0": m0} if m0 is not None else {}))
        log("computed")
        return {"x": np.arange(settings.n)}

    wildcards = {"activation": "gelu", "d": "100", "delta": "6.5"}
    cases = (({"n": 3}, {"d": 100, "delta": 6.5}, {}), ({"n": 2, "d": 300}, {"delta": 6.5}, {"m0": [0.1]}))
    for settings, cell, extra in cases:
        out = tmp_path / f"{len(settings)}.npz"
        params = Params(settings=settings, compute="x.y", cache_dir="c", **extra)
        smk = SimpleNamespace(params=params, wildcards=wildcards, output=[out], rule="toy_cell")
        run_cell_job(smk, compute, lines.append)
        arrays, record = load_npz(out)
        assert calls[-1] == cell | extra and type(calls[-1]["delta"]) is float
        np.testing.assert_array_equal(arrays["x"], np.arange(settings["n"]))
        assert record["params"] == {**cell, **settings}
    assert lines[0].startswith("toy_cell d=100 delta=6.5: ") and lines[1] == "computed"
    assert named_function("featlearn.io.results.stack_runs") is stack_runs
