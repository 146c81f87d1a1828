# Finite-size analysis of the GD thresholds (docs/finite_size.md): delta50(d) per model, the laws of
# its growth by the joint likelihood of every cell, what they decide about d -> inf, and the figure.


localrules:
    finite_size_scaling,
    finite_size_refine,


rule finite_size_scaling:
    message:
        "Finite-size analysis of the sweeps' thresholds: joint-likelihood laws, profiles, bootstrap, figure"
    input:
        unpack(finite_size_inputs),
        code=code("finite_size_scaling.py"),
    output:
        table=table_output(f"{RESULTS}/tables/finite_size_scaling.csv"),
        summary=table_output(f"{RESULTS}/tables/finite_size_summary.csv"),
        points=table_output(f"{RESULTS}/tables/finite_size_points.csv"),
        collapse=table_output(f"{RESULTS}/tables/finite_size_collapse.csv"),
        decide=table_output(f"{RESULTS}/tables/finite_size_decide.csv"),
        figure=figure_outputs(config["finite_size"]["stem"]),
    log:
        f"{RESULTS}/logs/finite_size/scaling.log",
    benchmark:
        f"{RESULTS}/benchmarks/finite_size/scaling.tsv"
    params:
        report_caption=report_caption,
        models=canonical(config["finite_size"]["models"]),
        bootstrap=config["finite_size"]["bootstrap"],
        level=config["finite_size"]["level"],
        limit_range=config["finite_size"]["limit_range"],
        min_d=config["finite_size"]["min_d"],
        pricing=finite_size_pricing(),
        seed=config["seed"],
        paper=canonical(config["claims"]["paper"]),
    conda:
        ENV
    script:
        "../scripts/finite_size_scaling.py"


rule finite_size_refine:
    message:
        "Second-pass delta placement around each d's crossing (an overlay, built on request)"
    input:
        unpack(finite_size_inputs),
        code=code("finite_size_refine.py"),
    output:
        f"{RESULTS}/finite_size/refine.yaml",
    log:
        f"{RESULTS}/logs/finite_size/refine.log",
    params:
        models=canonical(config["finite_size"]["models"]),
        refine=canonical(config["finite_size"]["refine"]),
        grids=lambda w: finite_size_grids(),
    conda:
        ENV
    script:
        "../scripts/finite_size_refine.py"
