# Stage 2: GD experiments: the sweeps, their thresholds and phase figures, the width and easy/hard figures, the long runs (Fig 2) and the spectral baseline (Fig 1).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule sweep_block:
    message:
        job_message("sweep_block")
    input:
        unpack(job_inputs("sweep_block")),
    output:
        job_output("sweep_block"),
    log:
        job_log("sweep_block"),
        usage=job_usage("sweep_block"),
    wildcard_constraints:
        **job_constraints("sweep_block"),
    params:
        **job_params("sweep_block"),
    threads: job_threads("sweep_block")
    resources:
        **job_resources("sweep_block"),
    conda:
        ENV
    script:
        "../scripts/run_cell.py"


rule aggregate_sweep:
    message:
        result_message("aggregate_sweep")
    localrule: True
    input:
        unpack(result_inputs("aggregate_sweep")),
    output:
        *result_files("aggregate_sweep"),
        **result_named_files("aggregate_sweep"),
    log:
        result_log("aggregate_sweep"),
    benchmark:
        result_benchmark("aggregate_sweep")
    wildcard_constraints:
        **result_constraints("aggregate_sweep"),
    params:
        report_caption=report_caption,
        **result_params("aggregate_sweep"),
    resources:
        **result_resources("aggregate_sweep"),
    conda:
        ENV
    script:
        "../scripts/aggregate_sweep.py"


rule threshold_table:
    message:
        result_message("threshold_table")
    localrule: True
    input:
        unpack(result_inputs("threshold_table")),
    output:
        *result_files("threshold_table"),
        **result_named_files("threshold_table"),
    log:
        result_log("threshold_table"),
    benchmark:
        result_benchmark("threshold_table")
    wildcard_constraints:
        **result_constraints("threshold_table"),
    params:
        report_caption=report_caption,
        **result_params("threshold_table"),
    resources:
        **result_resources("threshold_table"),
    conda:
        ENV
    script:
        "../scripts/threshold_table.py"


rule phase_figure:
    message:
        result_message("phase_figure")
    localrule: True
    input:
        unpack(result_inputs("phase_figure")),
    output:
        *result_files("phase_figure"),
        **result_named_files("phase_figure"),
    log:
        result_log("phase_figure"),
    benchmark:
        result_benchmark("phase_figure")
    wildcard_constraints:
        **result_constraints("phase_figure"),
    params:
        report_caption=report_caption,
        **result_params("phase_figure"),
    resources:
        **result_resources("phase_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_phase.py"


rule sweep_escape_steps_figure:
    message:
        result_message("sweep_escape_steps_figure")
    localrule: True
    input:
        unpack(result_inputs("sweep_escape_steps_figure")),
    output:
        *result_files("sweep_escape_steps_figure"),
        **result_named_files("sweep_escape_steps_figure"),
    log:
        result_log("sweep_escape_steps_figure"),
    benchmark:
        result_benchmark("sweep_escape_steps_figure")
    wildcard_constraints:
        **result_constraints("sweep_escape_steps_figure"),
    params:
        report_caption=report_caption,
        **result_params("sweep_escape_steps_figure"),
    resources:
        **result_resources("sweep_escape_steps_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_sweep_escape_steps.py"


rule width_figure:
    message:
        result_message("width_figure")
    localrule: True
    input:
        unpack(result_inputs("width_figure")),
    output:
        *result_files("width_figure"),
        **result_named_files("width_figure"),
    log:
        result_log("width_figure"),
    benchmark:
        result_benchmark("width_figure")
    wildcard_constraints:
        **result_constraints("width_figure"),
    params:
        report_caption=report_caption,
        **result_params("width_figure"),
    resources:
        **result_resources("width_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_width.py"


rule easy_hard_figure:
    message:
        result_message("easy_hard_figure")
    localrule: True
    input:
        unpack(result_inputs("easy_hard_figure")),
    output:
        *result_files("easy_hard_figure"),
        **result_named_files("easy_hard_figure"),
    log:
        result_log("easy_hard_figure"),
    benchmark:
        result_benchmark("easy_hard_figure")
    wildcard_constraints:
        **result_constraints("easy_hard_figure"),
    params:
        report_caption=report_caption,
        **result_params("easy_hard_figure"),
    resources:
        **result_resources("easy_hard_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_easy_hard.py"


rule grokking_dataset:
    message:
        job_message("grokking_dataset")
    input:
        unpack(job_inputs("grokking_dataset")),
    output:
        job_output("grokking_dataset"),
    log:
        job_log("grokking_dataset"),
        usage=job_usage("grokking_dataset"),
    wildcard_constraints:
        **job_constraints("grokking_dataset"),
    params:
        **job_params("grokking_dataset"),
    threads: job_threads("grokking_dataset")
    resources:
        **job_resources("grokking_dataset"),
    conda:
        ENV
    script:
        "../scripts/make_dataset.py"


rule grokking_run:
    message:
        job_message("grokking_run")
    input:
        unpack(job_inputs("grokking_run")),
    output:
        job_output("grokking_run"),
    log:
        job_log("grokking_run"),
        usage=job_usage("grokking_run"),
    wildcard_constraints:
        **job_constraints("grokking_run"),
    params:
        **job_params("grokking_run"),
    threads: job_threads("grokking_run")
    resources:
        **job_resources("grokking_run"),
    conda:
        ENV
    script:
        "../scripts/run_grokking.py"


rule grokking_figure:
    message:
        result_message("grokking_figure")
    localrule: True
    input:
        unpack(result_inputs("grokking_figure")),
    output:
        *result_files("grokking_figure"),
        **result_named_files("grokking_figure"),
    log:
        result_log("grokking_figure"),
    benchmark:
        result_benchmark("grokking_figure")
    wildcard_constraints:
        **result_constraints("grokking_figure"),
    params:
        report_caption=report_caption,
        **result_params("grokking_figure"),
    resources:
        **result_resources("grokking_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_grokking.py"


rule spectral_overlap:
    message:
        job_message("spectral_overlap")
    input:
        unpack(job_inputs("spectral_overlap")),
    output:
        job_output("spectral_overlap"),
    log:
        job_log("spectral_overlap"),
        usage=job_usage("spectral_overlap"),
    wildcard_constraints:
        **job_constraints("spectral_overlap"),
    params:
        **job_params("spectral_overlap"),
    threads: job_threads("spectral_overlap")
    resources:
        **job_resources("spectral_overlap"),
    conda:
        ENV
    script:
        "../scripts/spectral_overlap.py"


rule spectral_theory:
    message:
        result_message("spectral_theory")
    localrule: True
    input:
        unpack(result_inputs("spectral_theory")),
    output:
        *result_files("spectral_theory"),
        **result_named_files("spectral_theory"),
    log:
        result_log("spectral_theory"),
    benchmark:
        result_benchmark("spectral_theory")
    wildcard_constraints:
        **result_constraints("spectral_theory"),
    params:
        report_caption=report_caption,
        **result_params("spectral_theory"),
    resources:
        **result_resources("spectral_theory"),
    conda:
        ENV
    script:
        "../scripts/spectral_theory.py"


rule spectral_figure:
    message:
        result_message("spectral_figure")
    localrule: True
    input:
        unpack(result_inputs("spectral_figure")),
    output:
        *result_files("spectral_figure"),
        **result_named_files("spectral_figure"),
    log:
        result_log("spectral_figure"),
    benchmark:
        result_benchmark("spectral_figure")
    wildcard_constraints:
        **result_constraints("spectral_figure"),
    params:
        report_caption=report_caption,
        **result_params("spectral_figure"),
    resources:
        **result_resources("spectral_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_spectral.py"
