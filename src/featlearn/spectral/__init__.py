"""The optimal spectral method: delta_alg, the preprocessing T*, the estimator and its simulated overlap
(docs/spectral.md)."""
