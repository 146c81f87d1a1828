from pathlib import Path

from featlearn.io.job import logger
from featlearn.model.catalogue import config_kernel_source

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
activation, loss = sm.params.activation, sm.params.loss
Path(sm.output[0]).write_text(config_kernel_source(activation, loss))
entries = (("activation", activation), ("loss", loss))
named = [f"{kind} {entry[0]} = {entry[1]}" for kind, entry in entries if entry]
log(f"wrote the kernel of {' and '.join(named)} to {sm.output[0]}")
