# Stage 2: GD simulations. One job per sweep cell (all its trials); one job per long run.


rule sweep_cell:
    message:
        "GD sweep {wildcards.sweep}: d={wildcards.d}, delta={wildcards.delta}"
    input:
        code=code("run_cell.py"),
        cache=kernel_cache("run_cell"),
    output:
        job_output("sweep_cell"),
    log:
        job_log("sweep_cell"),
    benchmark:
        job_benchmark("sweep_cell")
    wildcard_constraints:
        **job_constraints("sweep_cell"),
    params:
        **job_params("sweep_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("sweep_cell"),
        runtime=job_runtime("sweep_cell"),
    conda:
        ENV
    script:
        "../scripts/run_cell.py"


rule grokking_run:
    message:
        "Long GD run {wildcards.name}"
    input:
        code=code("run_grokking.py"),
        data=f"{RESULTS}/data/{{name}}",
        cache=kernel_cache("run_grokking"),
    output:
        job_output("grokking_run"),
    log:
        job_log("grokking_run"),
    benchmark:
        job_benchmark("grokking_run")
    params:
        **job_params("grokking_run"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("grokking_run"),
        runtime=job_runtime("grokking_run"),
    conda:
        ENV
    script:
        "../scripts/run_grokking.py"

