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
