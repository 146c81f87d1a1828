# Stage 2: GD simulations. One job per sweep cell (all its trials); one job per long run.


rule sweep_cell:
    message:
        "GD sweep {wildcards.sweep}: d={wildcards.d}, delta={wildcards.delta}"
    input:
        code=code("run_cell.py"),
        cache=kernel_cache("run_cell"),
    output:
        f"{RESULTS}/sweeps/{{sweep}}/d{{d}}_delta{{delta}}.npz",
    log:
        f"{RESULTS}/logs/sweeps/{{sweep}}/d{{d}}_delta{{delta}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/sweeps/{{sweep}}/d{{d}}_delta{{delta}}.tsv"
    wildcard_constraints:
        d=r"\d+",
        delta=r"[0-9.]+",
    params:
        settings=lambda w: typed.sweep_settings(config, w.sweep).asdict(),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: sweep_cell_mem_mb(w),
        runtime=lambda w: sweep_cell_runtime(w),
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
        f"{RESULTS}/grokking/{{name}}.npz",
    log:
        f"{RESULTS}/logs/grokking/{{name}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/grokking/{{name}}.tsv"
    params:
        settings=lambda w: typed.long_run_settings(config, w.name).asdict(),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: grokking_mem_mb(w),
        runtime=lambda w: grokking_runtime(w),
    conda:
        ENV
    script:
        "../scripts/run_grokking.py"

