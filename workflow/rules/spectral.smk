# Stage 2b: the optimal spectral method (no GD): simulated estimator overlap, theory curve, delta_alg.


localrules:
    spectral_theory,


rule spectral_overlap:
    message:
        "Spectral estimator overlap at d={wildcards.d}"
    input:
        code=code("spectral_overlap.py"),
    output:
        job_output("spectral_overlap"),
    log:
        job_log("spectral_overlap"),
    benchmark:
        job_benchmark("spectral_overlap")
    wildcard_constraints:
        **job_constraints("spectral_overlap"),
    params:
        **job_params("spectral_overlap"),
    threads: 1
    resources:
        mem_mb=job_mem_mb("spectral_overlap"),
        runtime=job_runtime("spectral_overlap"),
    conda:
        ENV
    script:
        "../scripts/spectral_overlap.py"


rule spectral_theory:
    message:
        "Asymptotic spectral overlap curve and delta_alg per link"
    input:
        code=code("spectral_theory.py"),
    output:
        curve=table_output(f"{RESULTS}/tables/spectral_theory.csv"),
        delta_alg=table_output(f"{RESULTS}/tables/delta_alg.csv"),
    log:
        f"{RESULTS}/logs/spectral/theory.log",
    benchmark:
        f"{RESULTS}/benchmarks/spectral/theory.tsv"
    params:
        report_caption=report_caption,
        link=config["spectral"]["link"],
        noise=config["spectral"]["noise"],
        delta_max=max(config["spectral"]["delta"]),
        points=config["spectral"]["theory_points"],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/spectral_theory.py"
