from pathlib import Path

from featlearn.io.job import logger
from featlearn.model.catalogue import config_kernel_source

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
Path(sm.output[0]).write_text(config_kernel_source(sm.params.activation, sm.params.expression))
log(f"wrote the kernel of {sm.params.activation} = {sm.params.expression} to {sm.output[0]}")
