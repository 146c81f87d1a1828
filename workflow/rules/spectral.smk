# Stage 2b: the optimal spectral method (no GD): simulated estimator overlap, theory curve, delta_alg.


localrules:
    spectral_theory,


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
    conda:
        ENV
    script:
        "../scripts/spectral_theory.py"
