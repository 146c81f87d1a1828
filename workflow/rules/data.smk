# Stage 1: shared datasets and the numba kernel cache.


rule numba_cache:
    message:
        "Compiling the numba kernels into the on-disk cache"
    input:
        ENGINE_SOURCES,
    output:
        ready=touch(f"{NUMBA_CACHE}/ready"),
    log:
        f"{RESULTS}/logs/numba_cache.log",
    benchmark:
        f"{RESULTS}/benchmarks/numba_cache.tsv"
    params:
        cache_dir=lambda w, output: os.path.dirname(output.ready),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/warm_numba.py"


rule grokking_dataset:
    message:
        "Generating the dataset of the long run {wildcards.name}"
    input:
        ENGINE_SOURCES,
    output:
        directory(f"{RESULTS}/data/{{name}}"),
    log:
        f"{RESULTS}/logs/grokking_dataset/{{name}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/grokking_dataset/{{name}}.tsv"
    params:
        settings=lambda w: run_settings("grokking", w.name),
    threads: 1
    resources:
        mem_mb=4000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/make_dataset.py"
