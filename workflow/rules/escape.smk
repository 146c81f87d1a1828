# Stage 2e: the linear stage of the escape (docs/escape.md): the hard coordinate of
# unrestricted GD and its exact linearisation against the Gaussian process of the DMFT kernels.


localrules:
    escape_linear_table,


rule escape_linear_cell:
    message:
        "Linear stage of the escape: model {wildcards.model}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("escape_linear_cell", "escape_linear_cell")),
        code=code("escape_linear_cell.py"),
    output:
        job_output("escape_linear_cell"),
    log:
        job_log("escape_linear_cell"),
    benchmark:
        job_benchmark("escape_linear_cell")
    wildcard_constraints:
        **job_constraints("escape_linear_cell"),
    params:
        **job_params("escape_linear_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("escape_linear_cell"),
        runtime=job_runtime("escape_linear_cell"),
    conda:
        ENV
    script:
        "../scripts/escape_linear_cell.py"


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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/escape_linear_table.py"


rule escape_signal_cell:
    message:
        "DMFT with signal vs planted-overlap GD: model {wildcards.model}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("escape_signal_cell", "escape_signal_cell")),
        code=code("escape_signal_cell.py"),
    output:
        job_output("escape_signal_cell"),
    log:
        job_log("escape_signal_cell"),
    benchmark:
        job_benchmark("escape_signal_cell")
    wildcard_constraints:
        **job_constraints("escape_signal_cell"),
    params:
        **job_params("escape_signal_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("escape_signal_cell"),
        runtime=job_runtime("escape_signal_cell"),
    conda:
        ENV
    script:
        "../scripts/escape_signal_cell.py"


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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/escape_signal_table.py"


rule escape_prediction_cell:
    message:
        "Predicted success from the linear process: model {wildcards.model}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("escape_prediction_cell", "escape_prediction_cell")),
        code=code("escape_prediction_cell.py"),
    output:
        job_output("escape_prediction_cell"),
    log:
        job_log("escape_prediction_cell"),
    benchmark:
        job_benchmark("escape_prediction_cell")
    wildcard_constraints:
        **job_constraints("escape_prediction_cell"),
    params:
        **job_params("escape_prediction_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("escape_prediction_cell"),
        runtime=job_runtime("escape_prediction_cell"),
    conda:
        ENV
    script:
        "../scripts/escape_prediction_cell.py"


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
        settings=lambda w: {m: typed.prediction_settings(config, m).asdict() for m in config["escape"]["prediction"]["models"]},
        tolerance=config["escape"]["prediction"]["tolerance"],
        level="rho_c",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"


rule escape_two_stage_cell:
    message:
        "Two-stage prediction (linear process, then the kicked DMFT with signal): model {wildcards.model}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("escape_two_stage_cell", "escape_two_stage_cell")),
        code=code("escape_two_stage_cell.py"),
    output:
        job_output("escape_two_stage_cell"),
    log:
        job_log("escape_two_stage_cell"),
    benchmark:
        job_benchmark("escape_two_stage_cell")
    wildcard_constraints:
        **job_constraints("escape_two_stage_cell"),
    params:
        **job_params("escape_two_stage_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("escape_two_stage_cell"),
        runtime=job_runtime("escape_two_stage_cell"),
    conda:
        ENV
    script:
        "../scripts/escape_two_stage_cell.py"


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
        settings=lambda w: {m: typed.two_stage_settings(config, m).asdict() for m in config["escape"]["two_stage"]["models"]},
        tolerance=config["escape"]["prediction"]["tolerance"],
        level="t0",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"
