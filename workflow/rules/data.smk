# Stage 1: shared datasets and the numba kernel cache.


rule numba_cache:
    message:
        "Compiling the numba kernels of {wildcards.script}.py into the on-disk cache"
    input:
        # the warm-up and its consumer import the same modules: editing one reruns both
        code=lambda w: sorted(set(code("warm_numba.py")) | set(code(f"{w.script}.py"))),
    output:
        ready=touch(f"{NUMBA_CACHE}/{{script}}.ready"),
    log:
        f"{RESULTS}/logs/numba_cache/{{script}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/numba_cache/{{script}}.tsv"
    wildcard_constraints:
        script=r"\w+",
    params:
        cache_dir=lambda w, output: kernel_cache_dir(output.ready),
        modules=lambda w: module_names(ROOT / "workflow" / "scripts" / f"{w.script}.py", ROOT / "src" / "featlearn"),
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
        code=code("make_dataset.py"),
    output:
        directory(job_output("grokking_dataset")),
    log:
        job_log("grokking_dataset"),
    benchmark:
        job_benchmark("grokking_dataset")
    params:
        **job_params("grokking_dataset"),
    threads: 1
    resources:
        mem_mb=job_mem_mb("grokking_dataset"),
        runtime=job_runtime("grokking_dataset"),
    conda:
        ENV
    script:
        "../scripts/make_dataset.py"
