"""Theory: discrete-time DMFT, the static fixed point, the outlier equations, δ_NN and the
simulated referee."""
