import numpy as np

from featlearn.theory_sim import trajectory_cell

SETTINGS = {
    "seed": 7,
    "experiment": "test",
    "activation": "gelu",
    "link": "bump",
    "lr": 1.0,
    "dtype": "float64",
    "n_test": 50,
    "theta_star": "e1",
    "noise": 0.0,
    "m": 1,
    "init": "random",
    "r0": 1.0,
    "a": 1.0,
    "b": 0.0,
    "loss_normalisation": "none",
}


def test_referee_records_consistent_spectra():
    """Per-step arrays are complete; at each spectrum step λ_min ≤ H₁₁ (Rayleigh quotient of e₁),
    λ_min ≤ bulk edge, overlaps² in [0, 1]; the loss decreases along restricted GD."""
    cell = trajectory_cell(SETTINGS, 40, 6.0, 2, 8, [2, 8], 2, log=lambda *_: None)
    assert cell["norm2"].shape == (2, 9) and np.isfinite(cell["h11"]).all()
    steps = cell["spectrum_steps"]
    lam = cell["eigenvalues"][:, :, 0]
    assert np.all(lam <= cell["h11"][:, steps] + 1e-12)
    assert np.all(lam <= cell["bulk_edge"] + 1e-12)
    assert np.all((cell["overlap2"] >= 0) & (cell["overlap2"] <= 1 + 1e-12))
    assert np.all(np.diff(cell["train_loss"], axis=1) < 0)
