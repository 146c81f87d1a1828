# Stage 3: the DMFT and fixed-point theory, and the simulations it is checked against (Figs 9, 10; docs/dmft.md).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule dmft_model:
    message:
        job_message("dmft_model")
    input:
        unpack(job_inputs("dmft_model")),
    output:
        job_output("dmft_model"),
    log:
        job_log("dmft_model"),
        usage=job_usage("dmft_model"),
    wildcard_constraints:
        **job_constraints("dmft_model"),
    params:
        **job_params("dmft_model"),
    threads: job_threads("dmft_model")
    resources:
        **job_resources("dmft_model"),
    conda:
        ENV
    script:
        "../scripts/dmft_model.py"


rule fixed_point_model:
    message:
        job_message("fixed_point_model")
    input:
        unpack(job_inputs("fixed_point_model")),
    output:
        job_output("fixed_point_model"),
    log:
        job_log("fixed_point_model"),
        usage=job_usage("fixed_point_model"),
    wildcard_constraints:
        **job_constraints("fixed_point_model"),
    params:
        **job_params("fixed_point_model"),
    threads: job_threads("fixed_point_model")
    resources:
        **job_resources("fixed_point_model"),
    conda:
        ENV
    script:
        "../scripts/fixed_point_model.py"


rule theory_sim_cell:
    message:
        job_message("theory_sim_cell")
    input:
        unpack(job_inputs("theory_sim_cell")),
    output:
        job_output("theory_sim_cell"),
    log:
        job_log("theory_sim_cell"),
        usage=job_usage("theory_sim_cell"),
    wildcard_constraints:
        **job_constraints("theory_sim_cell"),
    params:
        **job_params("theory_sim_cell"),
    threads: job_threads("theory_sim_cell")
    resources:
        **job_resources("theory_sim_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule theory_tables:
    message:
        result_message("theory_tables")
    localrule: True
    input:
        unpack(result_inputs("theory_tables")),
    output:
        *result_files("theory_tables"),
        **result_named_files("theory_tables"),
    log:
        result_log("theory_tables"),
    benchmark:
        result_benchmark("theory_tables")
    wildcard_constraints:
        **result_constraints("theory_tables"),
    params:
        report_caption=report_caption,
        **result_params("theory_tables"),
    resources:
        **result_resources("theory_tables"),
    conda:
        ENV
    script:
        "../scripts/theory_tables.py"


rule theory_figure:
    message:
        result_message("theory_figure")
    localrule: False
    input:
        unpack(result_inputs("theory_figure")),
    output:
        *result_files("theory_figure"),
        **result_named_files("theory_figure"),
    log:
        result_log("theory_figure"),
    benchmark:
        result_benchmark("theory_figure")
    wildcard_constraints:
        **result_constraints("theory_figure"),
    params:
        report_caption=report_caption,
        **result_params("theory_figure"),
    resources:
        **result_resources("theory_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_theory.py"
