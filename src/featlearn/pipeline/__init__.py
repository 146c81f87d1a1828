"""The workflow's side of the package: typed job settings built from the config, the checks that
run before any job, the activation kernels of config activations, the figure manifest, resource
estimates and the module dependencies of rules."""
