# Stage 2e: the linear stage of the escape (docs/escape.md): the hard coordinate of
# unrestricted GD and its exact linearisation against the Gaussian process of the DMFT kernels.


localrules:
    escape_linear_table,


rule escape_linear_table:
    message:
        "Linear stage of the escape: theory vs simulation table and figure"
    input:
        code=code("escape_linear_table.py"),
        cells=escape_cells("linear"),
    output:
        table=table_output(f"{RESULTS}/tables/escape_linear_stage.csv"),
        referee=table_output(f"{RESULTS}/tables/escape_referee_trials.csv"),
        figure=figure_outputs("extra_escape_linear_stage"),
    log:
        f"{RESULTS}/logs/escape/linear_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/escape/linear_table.tsv"
    params:
        report_caption=report_caption,
        report_steps=config["escape"]["report_steps"],
    conda:
        ENV
    script:
        "../scripts/escape_linear_table.py"


rule escape_signal_table:
    message:
        "DMFT with signal vs planted-overlap GD: table"
    input:
        code=code("escape_signal_table.py"),
        cells=escape_cells("signal"),
    output:
        table=table_output(f"{RESULTS}/tables/escape_signal.csv"),
        runs=table_output(f"{RESULTS}/tables/escape_signal_runs.csv"),
    log:
        f"{RESULTS}/logs/escape/signal_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/escape/signal_table.tsv"
    params:
        report_caption=report_caption,
        report_steps=config["escape"]["report_steps"],
    conda:
        ENV
    script:
        "../scripts/escape_signal_table.py"


rule escape_prediction_table:
    message:
        "Predicted vs measured success and delta50(d): tables and figure"
    input:
        unpack(prediction_table_inputs("prediction")),
        code=code("escape_prediction_table.py"),
        theory=f"{RESULTS}/tables/theory_thresholds.csv",
    output:
        table=table_output(f"{RESULTS}/tables/escape_prediction.csv"),
        delta50=table_output(f"{RESULTS}/tables/delta50_prediction.csv"),
        figure=figure_outputs("extra_escape_prediction"),
    log:
        f"{RESULTS}/logs/escape/prediction_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/escape/prediction_table.tsv"
    params:
        report_caption=report_caption,
        models=canonical(config["escape"]["prediction"]["models"]),
        settings=lambda w: {m: typed.PREDICTION.build(config, model=m).asdict() for m in config["escape"]["prediction"]["models"]},
        tolerance=config["escape"]["prediction"]["tolerance"],
        level="rho_c",
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"


rule escape_two_stage_table:
    message:
        "Two-stage prediction vs measured success and delta50(d): tables and figure"
    input:
        unpack(prediction_table_inputs("two_stage")),
        code=code("escape_prediction_table.py"),
        theory=f"{RESULTS}/tables/theory_thresholds.csv",
    output:
        table=table_output(f"{RESULTS}/tables/escape_two_stage.csv"),
        delta50=table_output(f"{RESULTS}/tables/delta50_two_stage.csv"),
        scans=table_output(f"{RESULTS}/tables/escape_two_stage_scans.csv"),
        figure=figure_outputs("extra_escape_two_stage"),
    log:
        f"{RESULTS}/logs/escape/two_stage_table.log",
    benchmark:
        f"{RESULTS}/benchmarks/escape/two_stage_table.tsv"
    params:
        report_caption=report_caption,
        models=lambda w: canonical(config["escape"]["two_stage"]["models"]),
        settings=lambda w: {m: typed.TWO_STAGE.build(config, model=m).asdict() for m in config["escape"]["two_stage"]["models"]},
        tolerance=config["escape"]["prediction"]["tolerance"],
        level="t0",
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"
