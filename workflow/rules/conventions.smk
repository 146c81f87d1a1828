# Stage 3: the conventions scan (which training convention the paper used).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule convention_scan:
    message:
        job_message("convention_scan")
    input:
        unpack(job_inputs("convention_scan")),
    output:
        job_output("convention_scan"),
    log:
        job_log("convention_scan"),
        usage=job_usage("convention_scan"),
    wildcard_constraints:
        **job_constraints("convention_scan"),
    params:
        **job_params("convention_scan"),
    threads: job_threads("convention_scan")
    resources:
        **job_resources("convention_scan"),
    conda:
        ENV
    script:
        "../scripts/convention_scan.py"


rule convention_plateau:
    message:
        job_message("convention_plateau")
    input:
        unpack(job_inputs("convention_plateau")),
    output:
        job_output("convention_plateau"),
    log:
        job_log("convention_plateau"),
        usage=job_usage("convention_plateau"),
    wildcard_constraints:
        **job_constraints("convention_plateau"),
    params:
        **job_params("convention_plateau"),
    threads: job_threads("convention_plateau")
    resources:
        **job_resources("convention_plateau"),
    conda:
        ENV
    script:
        "../scripts/convention_plateau.py"


rule convention_table:
    message:
        result_message("convention_table")
    localrule: True
    input:
        unpack(result_inputs("convention_table")),
    output:
        *result_files("convention_table"),
        **result_named_files("convention_table"),
    log:
        result_log("convention_table"),
    benchmark:
        result_benchmark("convention_table")
    wildcard_constraints:
        **result_constraints("convention_table"),
    params:
        report_caption=report_caption,
        **result_params("convention_table"),
    resources:
        **result_resources("convention_table"),
    conda:
        ENV
    script:
        "../scripts/convention_table.py"
