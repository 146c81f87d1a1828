"""The model and its data: activations, links, the single-neuron loss, the network, seeded
Gaussian data, alignment metrics (docs/model.md)."""
