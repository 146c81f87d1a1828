"""Reading and writing result files: sweep cells (.npz with a JSON provenance record) and CSV tables."""

import csv
import json
import struct
import zipfile
from pathlib import Path

import numpy as np

from featlearn.io.provenance import dumps

ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)
"""The timestamp of every member of a result .npz: the bytes of a file depend on its content only,
so two builds of the same results (local and on a cluster, or resumed after a crash) are identical."""


def save_npz(path, arrays, record):
    """Arrays plus a provenance record (stored as the JSON string ``meta``), in the .npz format that
    :func:`numpy.load` reads (one uncompressed ``<name>.npy`` member per array), byte-reproducible."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, value in {"meta": np.array(dumps(record)), **arrays}.items():
            member = zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_EPOCH)
            with archive.open(member, "w", force_zip64=True) as fh:
                np.lib.format.write_array(fh, np.asanyarray(value), allow_pickle=False)


class DamagedResultError(Exception):
    """A result file that exists but cannot be read (truncated, overwritten, a corrupt member): its
    message is one line naming the file, what is wrong with it and the fix."""

    FIX = "delete it and rerun snakemake: the job that wrote it will run again"

    def __init__(self, path, problem):
        super().__init__(str(path), " ".join(str(problem).split()))  # args: picklable, one line

    def __str__(self):
        path, problem = self.args
        return f"damaged result file {path}: {problem}; {self.FIX}"


READ_ERRORS = (
    zipfile.BadZipFile,  # no central directory (truncated), bad CRC, bad header, ...
    ValueError,  # not a zip nor .npy (numpy's "pickled data"), bad .npy header, short array data
    KeyError,
    EOFError,
    OSError,  # a seek or read past the end of the bytes there are
    NotImplementedError,  # a corrupt compression method
    RuntimeError,  # a corrupt flag (``zipfile``: "File is encrypted")
    struct.error,
    OverflowError,
    MemoryError,  # a corrupt .npy shape
)
"""What reading the bytes of a damaged (not a missing or unreadable) result file raises."""


def read_member(path, archive, name, what):
    """The array ``name`` of an open result .npz; :class:`DamagedResultError` (``what`` is corrupt)
    when it cannot be read."""
    try:
        return archive[name]
    except READ_ERRORS as err:
        raise DamagedResultError(path, f"{what} is corrupt ({type(err).__name__}: {err})") from err


def read_record(path, archive):
    """The provenance record (JSON member ``meta``) of an open result .npz;
    :class:`DamagedResultError` when it is missing or not JSON."""
    if "meta" not in archive.files:
        raise DamagedResultError(path, "no provenance record (no member meta.npy)")
    text = str(read_member(path, archive, "meta", "the provenance record meta.npy"))
    try:
        return json.loads(text)
    except ValueError as err:
        raise DamagedResultError(path, f"the provenance record meta.npy is not JSON ({err})") from err


def check_directory(path, archive):
    """:class:`DamagedResultError` when the zip directory of an open result .npz has lost members:
    :func:`save_npz` writes no member comments, and a corrupt comment length makes ``zipfile`` read
    the entries after it as that comment, silently."""
    if any(info.comment for info in archive.zip.infolist()):
        raise DamagedResultError(path, "its zip directory is corrupt (members lost)")


def open_npz(path, fh):
    """The open .npz archive read from ``fh`` (the file ``path``); :class:`DamagedResultError` when
    its bytes are not one."""
    try:
        archive = np.load(fh)
    except READ_ERRORS as err:
        raise DamagedResultError(path, "not a zip archive (truncated or overwritten?)") from err
    if not isinstance(archive, np.lib.npyio.NpzFile):
        raise DamagedResultError(path, "not a zip archive (a single .npy array)")
    return archive


def load_npz(path):
    """(arrays, record) as written by :func:`save_npz`.  A missing or unreadable file raises as
    ``open`` does; a damaged one (truncated, overwritten, a corrupt member, no or a corrupt
    provenance record) :class:`DamagedResultError`, whose one-line message names it and the fix."""
    with open(path, "rb") as fh, open_npz(path, fh) as f:
        check_directory(path, f)
        arrays = {k: read_member(path, f, k, f"member {k}.npy") for k in f.files if k != "meta"}
        record = read_record(path, f)
    return arrays, record


def write_csv(path, rows):
    """Rows (dicts) to CSV, columns = union of their keys in first-seen order (missing cells
    empty); floats with 6 significant digits."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    fields = list(dict.fromkeys(k for row in rows for k in row))
    with open(path, "w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=fields)
        writer.writeheader()
        for row in rows:
            writer.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in row.items()})


BOOLEANS = {"True": True, "False": False}
"""How :func:`write_csv` writes booleans (``str(bool)``), read back as booleans, not as strings."""


def read_csv(path):
    """Rows of a CSV as dicts: "True"/"False" as booleans, numeric fields as floats, the rest as
    strings (so that a boolean written by :func:`write_csv` reads back as itself, never as the
    truthy string "False")."""

    def convert(v):
        if v in BOOLEANS:
            return BOOLEANS[v]
        try:
            return float(v)
        except ValueError:
            return v

    with open(path, newline="") as fh:
        return [{k: convert(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def stack_runs(runs, **shared):
    """One dict of arrays from per-run dicts with the same keys (leading axis = run), plus the
    ``shared`` entries (the same for every run)."""
    return {**shared, **{key: np.array([run[key] for run in runs]) for key in runs[0]}}


CELL_SHARED = ("steps", "d", "delta", "k")
"""The entries of a sweep cell (``gd.trials.run_cell``) that all its trials share; every other
array has one row per trial."""


def concatenate_blocks(blocks):
    """One sweep cell from its blocks [(arrays, record)] in trial order: per-trial arrays
    concatenated, shared entries from the first block, and the record's ``trials`` the total (its
    ``first_trial`` 0)."""
    arrays = [a for a, _ in blocks]
    cell = {k: v for k, v in arrays[0].items() if k in CELL_SHARED}
    cell |= {k: np.concatenate([a[k] for a in arrays]) for k in arrays[0] if k not in CELL_SHARED}
    record = dict(blocks[0][1])
    trials = sum(len(a["final_rho"]) for a in arrays)
    record["params"] = {**record["params"], "first_trial": 0, "trials": trials}
    return cell, record


def load_cells(paths):
    """The sweep cells [(arrays, record)] stored as blocks ``<cell>/block<b>.npz``, one per cell
    folder, each concatenated in block order."""
    cells = {}
    for path in map(Path, paths):
        cells.setdefault(path.parent, []).append(path)
    out = []
    for files in cells.values():
        files.sort(key=lambda p: int(p.stem.removeprefix("block")))
        out.append(concatenate_blocks([load_npz(p) for p in files]))
    return out
