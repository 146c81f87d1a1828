import numpy as np
from conftest import SETTINGS

from featlearn.cells.referee import trajectory_cell
from featlearn.pipeline.jobs import KIND

BASE = {k: v for k, v in SETTINGS.asdict().items() if k in KIND["theory_sim_cell"].settings.field_names()}
REFEREE = KIND["theory_sim_cell"].settings(
    **BASE | {"link": "bump", "n_test": 50, "steps": 8}, d=40, seeds=2, spectrum_steps=(2, 8), k=2
)


def test_referee_records_consistent_spectra():
    """Per-step arrays are complete; at each spectrum step λ_min ≤ H₁₁ (Rayleigh quotient of e₁),
    λ_min ≤ bulk edge, overlaps² in [0, 1]; the loss decreases along restricted GD."""
    cell = trajectory_cell(REFEREE, 6.0, log=lambda *_: None)
    assert cell["norm2"].shape == (2, 9) and np.isfinite(cell["h11"]).all()
    steps = cell["spectrum_steps"]
    lam = cell["eigenvalues"][:, :, 0]
    assert np.all(lam <= cell["h11"][:, steps] + 1e-12)
    assert np.all(lam <= cell["bulk_edge"] + 1e-12)
    assert np.all((cell["overlap2"] >= 0) & (cell["overlap2"] <= 1 + 1e-12))
    assert np.all(np.diff(cell["train_loss"], axis=1) < 0)
