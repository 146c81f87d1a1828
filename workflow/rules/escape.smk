# Stage 3: how GD escapes the plateau and the thresholds predicted from it (docs/escape.md).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule escape_linear_cell:
    message:
        job_message("escape_linear_cell")
    input:
        unpack(job_inputs("escape_linear_cell")),
    output:
        job_output("escape_linear_cell"),
    log:
        job_log("escape_linear_cell"),
        usage=job_usage("escape_linear_cell"),
    wildcard_constraints:
        **job_constraints("escape_linear_cell"),
    params:
        **job_params("escape_linear_cell"),
    threads: job_threads("escape_linear_cell")
    resources:
        **job_resources("escape_linear_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_linear_table:
    message:
        result_message("escape_linear_table")
    localrule: True
    input:
        unpack(result_inputs("escape_linear_table")),
    output:
        *result_files("escape_linear_table"),
        **result_named_files("escape_linear_table"),
    log:
        result_log("escape_linear_table"),
    benchmark:
        result_benchmark("escape_linear_table")
    wildcard_constraints:
        **result_constraints("escape_linear_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_linear_table"),
    resources:
        **result_resources("escape_linear_table"),
    conda:
        ENV
    script:
        "../scripts/escape_linear_table.py"


rule escape_anatomy_cell:
    message:
        job_message("escape_anatomy_cell")
    input:
        unpack(job_inputs("escape_anatomy_cell")),
    output:
        job_output("escape_anatomy_cell"),
    log:
        job_log("escape_anatomy_cell"),
        usage=job_usage("escape_anatomy_cell"),
    wildcard_constraints:
        **job_constraints("escape_anatomy_cell"),
    params:
        **job_params("escape_anatomy_cell"),
    threads: job_threads("escape_anatomy_cell")
    resources:
        **job_resources("escape_anatomy_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_anatomy_table:
    message:
        result_message("escape_anatomy_table")
    localrule: True
    input:
        unpack(result_inputs("escape_anatomy_table")),
    output:
        *result_files("escape_anatomy_table"),
        **result_named_files("escape_anatomy_table"),
    log:
        result_log("escape_anatomy_table"),
    benchmark:
        result_benchmark("escape_anatomy_table")
    wildcard_constraints:
        **result_constraints("escape_anatomy_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_anatomy_table"),
    resources:
        **result_resources("escape_anatomy_table"),
    conda:
        ENV
    script:
        "../scripts/escape_anatomy_table.py"


rule escape_signal_cell:
    message:
        job_message("escape_signal_cell")
    input:
        unpack(job_inputs("escape_signal_cell")),
    output:
        job_output("escape_signal_cell"),
    log:
        job_log("escape_signal_cell"),
        usage=job_usage("escape_signal_cell"),
    wildcard_constraints:
        **job_constraints("escape_signal_cell"),
    params:
        **job_params("escape_signal_cell"),
    threads: job_threads("escape_signal_cell")
    resources:
        **job_resources("escape_signal_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_signal_table:
    message:
        result_message("escape_signal_table")
    localrule: False
    input:
        unpack(result_inputs("escape_signal_table")),
    output:
        *result_files("escape_signal_table"),
        **result_named_files("escape_signal_table"),
    log:
        result_log("escape_signal_table"),
    benchmark:
        result_benchmark("escape_signal_table")
    wildcard_constraints:
        **result_constraints("escape_signal_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_signal_table"),
    resources:
        **result_resources("escape_signal_table"),
    conda:
        ENV
    script:
        "../scripts/escape_signal_table.py"


rule escape_prediction_cell:
    message:
        job_message("escape_prediction_cell")
    input:
        unpack(job_inputs("escape_prediction_cell")),
    output:
        job_output("escape_prediction_cell"),
    log:
        job_log("escape_prediction_cell"),
        usage=job_usage("escape_prediction_cell"),
    wildcard_constraints:
        **job_constraints("escape_prediction_cell"),
    params:
        **job_params("escape_prediction_cell"),
    threads: job_threads("escape_prediction_cell")
    resources:
        **job_resources("escape_prediction_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_prediction_table:
    message:
        result_message("escape_prediction_table")
    localrule: False
    input:
        unpack(result_inputs("escape_prediction_table")),
    output:
        *result_files("escape_prediction_table"),
        **result_named_files("escape_prediction_table"),
    log:
        result_log("escape_prediction_table"),
    benchmark:
        result_benchmark("escape_prediction_table")
    wildcard_constraints:
        **result_constraints("escape_prediction_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_prediction_table"),
    resources:
        **result_resources("escape_prediction_table"),
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"


rule escape_two_stage_cell:
    message:
        job_message("escape_two_stage_cell")
    input:
        unpack(job_inputs("escape_two_stage_cell")),
    output:
        job_output("escape_two_stage_cell"),
    log:
        job_log("escape_two_stage_cell"),
        usage=job_usage("escape_two_stage_cell"),
    wildcard_constraints:
        **job_constraints("escape_two_stage_cell"),
    params:
        **job_params("escape_two_stage_cell"),
    threads: job_threads("escape_two_stage_cell")
    resources:
        **job_resources("escape_two_stage_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_two_stage_table:
    message:
        result_message("escape_two_stage_table")
    localrule: False
    input:
        unpack(result_inputs("escape_two_stage_table")),
    output:
        *result_files("escape_two_stage_table"),
        **result_named_files("escape_two_stage_table"),
    log:
        result_log("escape_two_stage_table"),
    benchmark:
        result_benchmark("escape_two_stage_table")
    wildcard_constraints:
        **result_constraints("escape_two_stage_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_two_stage_table"),
    resources:
        **result_resources("escape_two_stage_table"),
    conda:
        ENV
    script:
        "../scripts/escape_prediction_table.py"


rule escape_finite_n_cell:
    message:
        job_message("escape_finite_n_cell")
    input:
        unpack(job_inputs("escape_finite_n_cell")),
    output:
        job_output("escape_finite_n_cell"),
    log:
        job_log("escape_finite_n_cell"),
        usage=job_usage("escape_finite_n_cell"),
    wildcard_constraints:
        **job_constraints("escape_finite_n_cell"),
    params:
        **job_params("escape_finite_n_cell"),
    threads: job_threads("escape_finite_n_cell")
    resources:
        **job_resources("escape_finite_n_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule escape_finite_n_table:
    message:
        result_message("escape_finite_n_table")
    localrule: True
    input:
        unpack(result_inputs("escape_finite_n_table")),
    output:
        *result_files("escape_finite_n_table"),
        **result_named_files("escape_finite_n_table"),
    log:
        result_log("escape_finite_n_table"),
    benchmark:
        result_benchmark("escape_finite_n_table")
    wildcard_constraints:
        **result_constraints("escape_finite_n_table"),
    params:
        report_caption=report_caption,
        **result_params("escape_finite_n_table"),
    resources:
        **result_resources("escape_finite_n_table"),
    conda:
        ENV
    script:
        "../scripts/escape_finite_n_table.py"


rule escape_finite_n_compare:
    message:
        result_message("escape_finite_n_compare")
    localrule: True
    input:
        unpack(result_inputs("escape_finite_n_compare")),
    output:
        *result_files("escape_finite_n_compare"),
        **result_named_files("escape_finite_n_compare"),
    log:
        result_log("escape_finite_n_compare"),
    benchmark:
        result_benchmark("escape_finite_n_compare")
    wildcard_constraints:
        **result_constraints("escape_finite_n_compare"),
    params:
        report_caption=report_caption,
        **result_params("escape_finite_n_compare"),
    resources:
        **result_resources("escape_finite_n_compare"),
    conda:
        ENV
    script:
        "../scripts/escape_finite_n_compare.py"
