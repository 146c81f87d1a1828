"""Reading and writing result files: sweep cells (.npz with a JSON provenance record) and CSV tables."""

import csv
import json
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


def load_npz(path):
    """(arrays, record) as written by :func:`save_npz`."""
    with np.load(path) as f:
        arrays = {k: f[k] for k in f.files if k != "meta"}
        record = json.loads(str(f["meta"]))
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
