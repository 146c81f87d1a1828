# Width and multi-index experiments: success vs delta per width m; easy vs hard directions.


localrules:
    width_figure,
    easy_hard_figure,


rule width_figure:
    message:
        "Drawing the width sweep"
    input:
        code=code("plot_width.py"),
        cells=[f"{RESULTS}/tables/{s}_cells.csv" for group in config["width"]["groups"].values() for s in group],
        fits=[f"{RESULTS}/tables/{s}_thresholds.csv" for group in config["width"]["groups"].values() for s in group],
    output:
        figure_outputs(config["width"]["stem"]),
    log:
        f"{RESULTS}/logs/figures/{config['width']['stem']}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{config['width']['stem']}.tsv"
    params:
        report_caption=report_caption,
        groups=config["width"]["groups"],
        widths={name: typed.SWEEP.build(config, sweep=name).m for g in config["width"]["groups"].values() for name in g},
    conda:
        ENV
    script:
        "../scripts/plot_width.py"


rule easy_hard_figure:
    message:
        "Drawing easy vs hard direction learning"
    input:
        code=code("plot_easy_hard.py"),
        cells=lambda w: sweep_cells(config["easy_hard"]["sweep"]),
    output:
        figure=figure_outputs(config["easy_hard"]["stem"]),
        table=table_output(f"{RESULTS}/tables/{config['easy_hard']['stem']}_learning_steps.csv"),
    log:
        f"{RESULTS}/logs/figures/{config['easy_hard']['stem']}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{config['easy_hard']['stem']}.tsv"
    params:
        report_caption=report_caption,
        level=config["easy_hard"]["learned_overlap"],
    conda:
        ENV
    script:
        "../scripts/plot_easy_hard.py"
