# Stage 2c: Hessian spectrum at the restricted-GD plateau (the mechanism, docs/outlier.md).


localrules:
    hessian_table,
    spectral_threshold_table,
    landscape_figure,


rule spectral_threshold_table:
    message:
        "The plateau's spectral threshold delta_spec(d) per activation (docs/finite_size.md, (F14))"
    input:
        unpack(spectral_threshold_inputs),
        code=code("spectral_threshold_table.py"),
        theory=f"{RESULTS}/tables/theory_thresholds.csv",
    output:
        table_output(f"{RESULTS}/tables/spectral_threshold.csv"),
    log:
        f"{RESULTS}/logs/hessian/spectral_threshold.log",
    benchmark:
        f"{RESULTS}/benchmarks/hessian/spectral_threshold.tsv"
    params:
        report_caption=report_caption,
        theory=canonical(config["theory"]["hessian_overlay"]),
        activations=sorted(config.get("spectral_threshold", {}).get("delta", {})),
    conda:
        ENV
    script:
        "../scripts/spectral_threshold_table.py"


rule hessian_table:
    message:
        "Collecting the plateau spectra of {wildcards.activation}"
    input:
        code=code("hessian_table.py"),
        cells=lambda w: job_outputs("hessian_cell", activation=w.activation),
    output:
        table_output(f"{RESULTS}/tables/hessian_{{activation}}.csv"),
    log:
        f"{RESULTS}/logs/hessian/table_{{activation}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/hessian/table_{{activation}}.tsv"
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/hessian_table.py"


rule landscape_figure:
    message:
        "Drawing Fig 3 (the measured landscape)"
    input:
        code=code("plot_landscape.py"),
        cells=landscape_cells(),
    output:
        figure_outputs(config["landscape"]["stem"]),
    log:
        f"{RESULTS}/logs/figures/{config['landscape']['stem']}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{config['landscape']['stem']}.tsv"
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/plot_landscape.py"
