# Stage 2b: the optimal spectral method (no GD): simulated estimator overlap, theory curve, delta_alg.


localrules:
    spectral_theory,


rule spectral_overlap:
    message:
        "Spectral estimator overlap at d={wildcards.d}"
    input:
        code=code("spectral_overlap.py"),
    output:
        f"{RESULTS}/spectral/overlap_d{{d}}.csv",
    log:
        f"{RESULTS}/logs/spectral/overlap_d{{d}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/spectral/overlap_d{{d}}.tsv"
    wildcard_constraints:
        d=r"\d+",
    params:
        settings=typed.spectral_settings(config).asdict(),
    threads: 1
    resources:
        mem_mb=lambda w: estimate.spectral_mem_mb(int(w.d), max(config["spectral"]["delta"])),
        runtime=lambda w: estimate.minutes(
            estimate.spectral_seconds(int(w.d), config["spectral"]["delta"], config["spectral"]["trials"])
        ),
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
