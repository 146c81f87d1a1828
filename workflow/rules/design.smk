# Stage 3: the activation designer (theory's ranking of designs, and GD on the best).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule design_theory:
    message:
        job_message("design_theory")
    input:
        unpack(job_inputs("design_theory")),
    output:
        job_output("design_theory"),
    log:
        job_log("design_theory"),
        usage=job_usage("design_theory"),
    wildcard_constraints:
        **job_constraints("design_theory"),
    params:
        **job_params("design_theory"),
    threads: job_threads("design_theory")
    resources:
        **job_resources("design_theory"),
    conda:
        ENV
    script:
        "../scripts/design_theory.py"


rule design_family:
    message:
        job_message("design_family")
    input:
        unpack(job_inputs("design_family")),
    output:
        job_output("design_family"),
    log:
        job_log("design_family"),
        usage=job_usage("design_family"),
    wildcard_constraints:
        **job_constraints("design_family"),
    params:
        **job_params("design_family"),
    threads: job_threads("design_family")
    resources:
        **job_resources("design_family"),
    conda:
        ENV
    script:
        "../scripts/design_family.py"


rule design_sweeps:
    message:
        result_message("design_sweeps")
    localrule: True
    input:
        unpack(result_inputs("design_sweeps")),
    output:
        *result_files("design_sweeps"),
        **result_named_files("design_sweeps"),
    log:
        result_log("design_sweeps"),
    benchmark:
        result_benchmark("design_sweeps")
    wildcard_constraints:
        **result_constraints("design_sweeps"),
    params:
        report_caption=report_caption,
        **result_params("design_sweeps"),
    resources:
        **result_resources("design_sweeps"),
    conda:
        ENV
    script:
        "../scripts/design_sweeps.py"


rule design_table:
    message:
        result_message("design_table")
    localrule: True
    input:
        unpack(result_inputs("design_table")),
    output:
        *result_files("design_table"),
        **result_named_files("design_table"),
    log:
        result_log("design_table"),
    benchmark:
        result_benchmark("design_table")
    wildcard_constraints:
        **result_constraints("design_table"),
    params:
        report_caption=report_caption,
        **result_params("design_table"),
    resources:
        **result_resources("design_table"),
    conda:
        ENV
    script:
        "../scripts/design_table.py"
