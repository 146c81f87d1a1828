# Stage 3: the finite-size analysis of the sweeps' thresholds (docs/finite_size.md).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule finite_size_scaling:
    message:
        result_message("finite_size_scaling")
    localrule: True
    input:
        unpack(result_inputs("finite_size_scaling")),
    output:
        *result_files("finite_size_scaling"),
        **result_named_files("finite_size_scaling"),
    log:
        result_log("finite_size_scaling"),
    benchmark:
        result_benchmark("finite_size_scaling")
    wildcard_constraints:
        **result_constraints("finite_size_scaling"),
    params:
        report_caption=report_caption,
        **result_params("finite_size_scaling"),
    resources:
        **result_resources("finite_size_scaling"),
    conda:
        ENV
    script:
        "../scripts/finite_size_scaling.py"


rule finite_size_refine:
    message:
        result_message("finite_size_refine")
    localrule: True
    input:
        unpack(result_inputs("finite_size_refine")),
    output:
        *result_files("finite_size_refine"),
        **result_named_files("finite_size_refine"),
    log:
        result_log("finite_size_refine"),
    benchmark:
        result_benchmark("finite_size_refine")
    wildcard_constraints:
        **result_constraints("finite_size_refine"),
    params:
        report_caption=report_caption,
        **result_params("finite_size_refine"),
    resources:
        **result_resources("finite_size_refine"),
    conda:
        ENV
    script:
        "../scripts/finite_size_refine.py"
