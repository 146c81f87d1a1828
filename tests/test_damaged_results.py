"""A damaged result file names itself: loading one raises a one-line error with its path, what is
wrong with it and the fix (delete it and rerun), never a bare ``zipfile``/numpy traceback."""

import pickle

import numpy as np
import pytest

from featlearn.io.results import DamagedResultError, load_npz, save_npz

ARRAYS = {"final_rho": np.linspace(0.0, 1.0, 200), "steps": np.arange(50), "diverged": False}
RECORD = {"params": {"d": 250, "delta": 5, "trials": 200}}


@pytest.fixture
def block(tmp_path):
    """A sweep block written by ``save_npz`` (about 3 kB)."""
    path = tmp_path / "gelu" / "d250_delta5" / "block0.npz"
    save_npz(path, ARRAYS, RECORD)
    return path


def damage_message(path, chained=True):
    """The message of the error loading ``path`` raises, checked to name it and the fix in one line
    (and, where ``chained``, to keep the error that revealed the damage as its cause)."""
    with pytest.raises(DamagedResultError) as caught:
        load_npz(path)
    message = str(caught.value)
    assert str(path) in message and "delete it and rerun" in message
    assert "\n" not in message
    assert (caught.value.__cause__ is not None) == chained
    return message


def test_a_good_block_loads_what_was_saved(block):
    arrays, record = load_npz(block)
    assert set(arrays) == set(ARRAYS) and record == RECORD
    for key, value in ARRAYS.items():
        np.testing.assert_array_equal(arrays[key], value)
        assert arrays[key].dtype == np.asarray(value).dtype


def test_a_truncated_block_names_itself(block):
    assert block.stat().st_size > 2048
    block.write_bytes(block.read_bytes()[:2048])
    assert "not a zip archive" in damage_message(block)


def test_a_block_overwritten_with_garbage_names_itself(block):
    block.write_bytes(np.random.default_rng(0).bytes(block.stat().st_size))
    assert "not a zip archive" in damage_message(block)


def test_a_block_with_corrupt_member_bytes_names_the_member(block):
    data = bytearray(block.read_bytes())
    start = data.index(np.linspace(0.0, 1.0, 200).tobytes())  # final_rho's array data
    data[start + 800 : start + 808] = bytes(8)  # zeroes in the middle: its CRC no longer matches
    block.write_bytes(bytes(data))
    assert "member final_rho.npy is corrupt" in damage_message(block)


def test_a_block_without_provenance_record_names_itself(tmp_path):
    path = tmp_path / "block0.npz"
    np.savez(path, final_rho=np.zeros(3))
    assert "no provenance record" in damage_message(path, chained=False)


def test_a_block_whose_provenance_record_is_not_json_names_itself(tmp_path):
    path = tmp_path / "block0.npz"
    np.savez(path, final_rho=np.zeros(3), meta=np.array('{"params": {"d": 2'))
    assert "meta.npy is not JSON" in damage_message(path)


def test_a_missing_block_is_not_called_damaged(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_npz(tmp_path / "block0.npz")


def test_the_error_survives_pickling(tmp_path):
    error = pickle.loads(pickle.dumps(DamagedResultError(tmp_path / "b.npz", "not a zip archive")))
    assert str(error).startswith(f"damaged result file {tmp_path / 'b.npz'}: not a zip archive; delete")
