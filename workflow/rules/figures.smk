# Stage 4: figures, drawn from stored tables and arrays only.


localrules:
    phase_figure,
    grokking_figure,


rule phase_figure:
    message:
        "Drawing {wildcards.stem}"
    input:
        cells=lambda w: f"{RESULTS}/tables/{sweep_of_figure(w.stem)}_cells.csv",
        thresholds=lambda w: f"{RESULTS}/tables/{sweep_of_figure(w.stem)}_thresholds.csv",
    output:
        figure_files("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem="|".join(spec["figure"] for spec in config["sweeps"].values()) or "^$",
    params:
        title=lambda w: "{activation}, y = {link}".format(**run_settings("sweeps", sweep_of_figure(w.stem))),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/plot_phase.py"


rule grokking_figure:
    message:
        "Drawing {wildcards.name}"
    input:
        f"{RESULTS}/grokking/{{name}}.npz",
    output:
        figure_files("{name}"),
    log:
        f"{RESULTS}/logs/figures/{{name}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{name}}.tsv"
    wildcard_constraints:
        name="|".join(config["grokking"]) or "^$",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/plot_grokking.py"
