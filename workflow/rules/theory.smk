# Stage 2d: theory (DMFT + outlier equations, static fixed point) and its simulated referee.


localrules:
    theory_tables,


rule theory_tables:
    message:
        "Theory thresholds and theory-vs-simulation agreement tables"
    input:
        **theory_inputs(),
        thresholds=f"{RESULTS}/tables/thresholds.csv",
        code=code("theory_tables.py"),
    output:
        [table_output(f"{RESULTS}/tables/{name}") for name in THEORY_TABLES],
    log:
        f"{RESULTS}/logs/theory/tables.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/tables.tsv"
    params:
        report_caption=report_caption,
        models=theory_model_params()[0],
        n_paths=theory_model_params()[1],
        report_steps=config["theory"]["report_steps"],
        horizon=config["theory"]["horizon"],
        validation=canonical(config["theory"]["validation"]),
    conda:
        ENV
    script:
        "../scripts/theory_tables.py"


rule theory_figure:
    message:
        "Drawing {wildcards.stem}"
    input:
        **theory_inputs(),
        code=code("plot_theory.py"),
        # only the δ_NN figure draws the empirical thresholds from the table
        table=lambda w: f"{RESULTS}/tables/theory_thresholds.csv" if THEORY_KINDS[w.stem] == "delta_nn" else [],
    output:
        figure_outputs("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem=stem_constraint("theory_figure"),
    params:
        report_caption=report_caption,
        models=theory_model_params()[0],
        n_paths=theory_model_params()[1],
        kind=lambda w: THEORY_KINDS[w.stem],
    conda:
        ENV
    script:
        "../scripts/plot_theory.py"
