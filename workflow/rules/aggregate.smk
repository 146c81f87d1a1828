# Stage 3: cell summaries and threshold fits.


localrules:
    aggregate_sweep,
    threshold_table,


rule aggregate_sweep:
    message:
        "Summarising sweep {wildcards.sweep} and fitting its thresholds"
    input:
        cells=lambda w: sweep_cells(w.sweep),
        code=code("aggregate_sweep.py"),
    output:
        cells=table_output(f"{RESULTS}/tables/{{sweep}}_cells.csv"),
        thresholds=table_output(f"{RESULTS}/tables/{{sweep}}_thresholds.csv"),
    log:
        f"{RESULTS}/logs/aggregate/{{sweep}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/aggregate/{{sweep}}.tsv"
    wildcard_constraints:
        sweep="|".join(config["sweeps"]),
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/aggregate_sweep.py"


rule threshold_table:
    message:
        "Collecting the threshold table"
    input:
        code=code("threshold_table.py"),
        # the k = 2 easy+hard sweep has no single-direction transition: it has its own table
        sweeps=[
            f"{RESULTS}/tables/{name}_thresholds.csv"
            for name in config["sweeps"]
            if name != config["easy_hard"]["sweep"]
        ],
        delta_alg=f"{RESULTS}/tables/delta_alg.csv",
    output:
        table_output(f"{RESULTS}/tables/thresholds.csv"),
    log:
        f"{RESULTS}/logs/threshold_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/threshold_table.tsv"
    params:
        report_caption=report_caption,
    resources:
        mem_mb=500,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/threshold_table.py"
