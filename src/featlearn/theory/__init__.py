"""Theory: discrete-time DMFT, the static fixed point, the outlier equations, δ_NN and the
simulated referee (docs/dmft.md, docs/outlier.md); the hard-coordinate process, its exact referee and
the predicted success of the escape (docs/escape.md)."""
