# Stage 2b: the optimal spectral method (no GD): simulated estimator overlap, theory curve, delta_alg.


localrules:
    spectral_theory,


rule spectral_overlap:
    message:
        "Spectral estimator overlap at d={wildcards.d}"
    input:
        ENGINE_SOURCES,
        code("spectral_sim.py"),
    output:
        f"{RESULTS}/spectral/overlap_d{{d}}.csv",
    log:
        f"{RESULTS}/logs/spectral/overlap_d{{d}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/spectral/overlap_d{{d}}.tsv"
    wildcard_constraints:
        d=r"\d+",
    params:
        seed=config["seed"],
        spec=lambda w: canonical({k: v for k, v in config["spectral"].items() if k not in ("d", "theory_points")}),
    threads: 1
    resources:
        mem_mb=lambda w: 1000 + int(3e-5 * int(w.d) ** 2 * max(config["spectral"]["delta"])),
        runtime=30,
    conda:
        ENV
    script:
        "../scripts/spectral_overlap.py"


rule spectral_theory:
    message:
        "Asymptotic spectral overlap curve and delta_alg per link"
    input:
        ENGINE_SOURCES,
        code("spectral_sim.py"),
    output:
        curve=f"{RESULTS}/tables/spectral_theory.csv",
        delta_alg=f"{RESULTS}/tables/delta_alg.csv",
    log:
        f"{RESULTS}/logs/spectral/theory.log",
    benchmark:
        f"{RESULTS}/benchmarks/spectral/theory.tsv"
    params:
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
