# The compute jobs: one rule per kind of the job registry (featlearn.pipeline.jobs), which declares
# each kind's paths, script, inputs, params, threads and resources.


def job_inputs(kind):
    """Input function of a compute job: its code, the kind's other inputs and, for a kind that runs
    numba kernels, its warm kernel cache (and model kernel: ``kernel_cache``)."""
    script_code = code(f"{kind.script}.py")
    warm = kernel_cache(kind.rule, kind.script) if kind.warm else (lambda w: {})

    def inputs(w):
        other = {name: pattern.format(**dict(w.items())) for name, pattern in kind.inputs}
        return {**warm(w), "code": script_code, **other}

    return inputs


def job_rule_params(kind):
    """A compute job's params (``job_params``) and, where it runs numba kernels, its cache directory."""
    params = job_params(kind.rule)
    if kind.warm:
        params["cache_dir"] = lambda w, input: kernel_cache_dir(input.cache)
    return params


for kind in registry.KINDS:

    rule:
        name:
            kind.rule
        message:
            kind.message()
        input:
            unpack(job_inputs(kind)),
        output:
            directory(kind.pattern("output")) if kind.suffix == "" else kind.pattern("output"),
        log:
            kind.pattern("log"),
        benchmark:
            kind.pattern("benchmark")
        wildcard_constraints:
            **dict(kind.constraints),
        params:
            **job_rule_params(kind),
        threads: kind.job_threads(config)
        resources:
            mem_mb=job_mem_mb(kind.rule),
            runtime=job_runtime(kind.rule),
        conda:
            ENV
        script:
            f"../scripts/{kind.script}.py"
