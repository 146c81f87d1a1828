"""A restricted-GD cell job (plateau or referee): settings in, arrays with provenance out."""

from featlearn.io.provenance import provenance
from featlearn.io.results import save_npz


def run_delta_cell(smk, settings_class, compute, log):
    """Settings from the rule's params, δ from its wildcard, ``compute(settings, δ, log)`` → arrays,
    saved with their provenance to the job's output."""
    settings = settings_class.from_dict(smk.params.settings)
    delta = float(smk.wildcards.delta)
    log(f"{smk.rule} delta={delta}: {settings}")
    save_npz(smk.output[0], compute(settings, delta, log), provenance(delta=delta, **settings.asdict()))
