# Stage 2: GD simulations. One job per sweep cell (all its trials); one job per long run.


rule sweep_cell:
    message:
        "GD sweep {wildcards.sweep}: d={wildcards.d}, delta={wildcards.delta}"
    input:
        ENGINE_SOURCES,
        cache=f"{NUMBA_CACHE}/ready",
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
        settings=lambda w: run_settings("sweeps", w.sweep),
        cache_dir=lambda w, input: os.path.dirname(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: 1000 + int(3e-5 * int(w.d) ** 2 * float(w.delta)),
        runtime=120,
    conda:
        ENV
    script:
        "../scripts/run_cell.py"


rule grokking_run:
    message:
        "Long GD run {wildcards.name}"
    input:
        ENGINE_SOURCES,
        data=f"{RESULTS}/data/{{name}}",
        cache=f"{NUMBA_CACHE}/ready",
    output:
        f"{RESULTS}/grokking/{{name}}.npz",
    log:
        f"{RESULTS}/logs/grokking/{{name}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/grokking/{{name}}.tsv"
    params:
        settings=lambda w: run_settings("grokking", w.name),
        cache_dir=lambda w, input: os.path.dirname(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=4000,
        runtime=120,
    conda:
        ENV
    script:
        "../scripts/run_grokking.py"
