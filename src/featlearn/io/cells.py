"""A restricted-GD cell job (plateau or referee): settings in, arrays with provenance out."""

from featlearn.io.provenance import provenance
from featlearn.io.results import save_npz
from featlearn.io.settings import JobSettings


def run_delta_cell(smk, compute, log):
    """Settings from the rule's params (``JobSettings.from_dict``), δ from its wildcard,
    ``compute(settings, δ, log)`` → arrays, saved with their provenance to the job's output."""
    settings = JobSettings.from_dict(smk.params.settings)
    delta = float(smk.wildcards.delta)
    log(f"{smk.rule} delta={delta}: {settings}")
    save_npz(smk.output[0], compute(settings, delta, log), provenance(delta=delta, **settings.asdict()))
