"""The plateau table: one row per (δ, seed) of the restricted-GD plateau cells of an activation
(docs/outlier.md, "The simulated spectra")."""

from featlearn.analysis.criteria import negative_aligned


def plateau_rows(activation, cells):
    """Rows {activation, d, δ, seed, steps, converged, train loss, ‖θ‖, λ_min, overlap², bulk edge,
    H₁₁, the semi-empirical outlier (outlier equations on the state's own law) and whether λ_min
    is a negative aligned outlier} from the stacked plateau cells (``hessian.plateau``)."""
    rows = []
    for cell in cells:
        for seed in range(cell["eigenvalues"].shape[0]):
            lam, ov2 = float(cell["eigenvalues"][seed, 0]), float(cell["overlap2"][seed, 0])
            rows.append(
                {
                    "activation": activation,
                    "d": int(cell["d"]),
                    "delta": float(cell["delta"]),
                    "seed": seed,
                    "steps": int(cell["final_step"][seed]),
                    "converged": bool(cell["converged"][seed]),
                    "train_loss": float(cell["final_train_loss"][seed]),
                    "norm": float(cell["final_norm"][seed]),
                    "lambda_min": lam,
                    "overlap2": ov2,
                    "bulk_edge": float(cell["bulk_edge"][seed]),
                    "h11": float(cell["h11"][seed]),
                    **{
                        f"semi_empirical_{key}": float(cell[f"semi_empirical_{key}"][seed])
                        for key in ("outlier", "overlap2", "bulk_edge")
                    },
                    "negative_aligned": bool(negative_aligned(lam, ov2)),
                }
            )
    return rows
