import json
from pathlib import Path

import numpy as np

from featlearn.joblog import logger
from featlearn.provenance import dumps, provenance
from featlearn.sweep import trial_setup

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
settings = dict(sm.params.settings)
out = Path(sm.output[0])
out.mkdir(parents=True, exist_ok=True)
data, theta0, a, b = trial_setup(settings, settings["d"], settings["delta"], 0)
for name, array in {**data, "theta0": theta0, "a": a, "b": b}.items():
    np.save(out / f"{name}.npy", array)
    log(f"wrote {name}.npy {array.shape} {array.dtype}")
(out / "meta.json").write_text(dumps(provenance(trial=0, **settings)))
log(json.dumps({k: list(v.shape) for k, v in data.items()}))
