"""The empirical-risk Hessian: its spectrum, and the restricted-GD plateau where it is measured
(docs/outlier.md, "The simulated spectra")."""
