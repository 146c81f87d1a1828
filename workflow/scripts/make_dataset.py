from pathlib import Path

import numpy as np

from featlearn.gd.trials import trial_setup
from featlearn.io.job import logger
from featlearn.io.provenance import dumps, provenance
from featlearn.io.settings import JobSettings

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
settings = JobSettings.from_dict(sm.params.settings)
out = Path(sm.output[0])
out.mkdir(parents=True, exist_ok=True)
data, net = trial_setup(settings, settings.d, settings.delta, 0)
for name, array in {**data, "theta0": net.theta0, "a": net.a, "b": net.b}.items():
    np.save(out / f"{name}.npy", array)
    log(f"wrote {name}.npy {array.shape} {array.dtype}")
(out / "meta.json").write_text(dumps(provenance(trial=0, **settings.asdict())))
