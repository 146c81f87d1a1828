# Stage 2: GD simulations. One job per block of a sweep cell (trial_block trials); one per long run.


rule sweep_block:
    message:
        "GD sweep {wildcards.sweep}: d={wildcards.d}, delta={wildcards.delta}, block {wildcards.block}"
    input:
        unpack(kernel_cache("sweep_block", "run_cell")),
        code=code("run_cell.py"),
    output:
        job_output("sweep_block"),
    log:
        job_log("sweep_block"),
    benchmark:
        job_benchmark("sweep_block")
    wildcard_constraints:
        **job_constraints("sweep_block"),
    params:
        **job_params("sweep_block"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("sweep_block"),
        runtime=job_runtime("sweep_block"),
    conda:
        ENV
    script:
        "../scripts/run_cell.py"


rule grokking_run:
    message:
        "Long GD run {wildcards.name}"
    input:
        unpack(kernel_cache("grokking_run", "run_grokking")),
        code=code("run_grokking.py"),
        data=f"{RESULTS}/data/{{name}}",
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

