"""The workflow's side of the package: typed job settings built from the config, the checks that
run before any job, the model kernels of config activations and losses, the figure manifest, resource
estimates and the module dependencies of rules."""
