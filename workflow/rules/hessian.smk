# Stage 3: the Hessian at the restricted-GD plateau, its threshold scan and landscape (Figs 3, 7, 8; docs/outlier.md).
# Each rule is a thin shell over its declaration: a compute rule's parts come from its kind in the job
# registry (featlearn.pipeline.jobs, `job_*` in common.smk), a table or figure rule's from its entry in
# featlearn.pipeline.result_rules (`result_*`); the script it runs is written here.


rule hessian_cell:
    message:
        job_message("hessian_cell")
    input:
        unpack(job_inputs("hessian_cell")),
    output:
        job_output("hessian_cell"),
    log:
        job_log("hessian_cell"),
        usage=job_usage("hessian_cell"),
    wildcard_constraints:
        **job_constraints("hessian_cell"),
    params:
        **job_params("hessian_cell"),
    threads: job_threads("hessian_cell")
    resources:
        **job_resources("hessian_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule spectral_threshold_cell:
    message:
        job_message("spectral_threshold_cell")
    input:
        unpack(job_inputs("spectral_threshold_cell")),
    output:
        job_output("spectral_threshold_cell"),
    log:
        job_log("spectral_threshold_cell"),
        usage=job_usage("spectral_threshold_cell"),
    wildcard_constraints:
        **job_constraints("spectral_threshold_cell"),
    params:
        **job_params("spectral_threshold_cell"),
    threads: job_threads("spectral_threshold_cell")
    resources:
        **job_resources("spectral_threshold_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule landscape_cell:
    message:
        job_message("landscape_cell")
    input:
        unpack(job_inputs("landscape_cell")),
    output:
        job_output("landscape_cell"),
    log:
        job_log("landscape_cell"),
        usage=job_usage("landscape_cell"),
    wildcard_constraints:
        **job_constraints("landscape_cell"),
    params:
        **job_params("landscape_cell"),
    threads: job_threads("landscape_cell")
    resources:
        **job_resources("landscape_cell"),
    conda:
        ENV
    script:
        "../scripts/run_compute.py"


rule hessian_table:
    message:
        result_message("hessian_table")
    localrule: True
    input:
        unpack(result_inputs("hessian_table")),
    output:
        *result_files("hessian_table"),
        **result_named_files("hessian_table"),
    log:
        result_log("hessian_table"),
    benchmark:
        result_benchmark("hessian_table")
    wildcard_constraints:
        **result_constraints("hessian_table"),
    params:
        report_caption=report_caption,
        **result_params("hessian_table"),
    resources:
        **result_resources("hessian_table"),
    conda:
        ENV
    script:
        "../scripts/hessian_table.py"


rule spectral_threshold_table:
    message:
        result_message("spectral_threshold_table")
    localrule: True
    input:
        unpack(result_inputs("spectral_threshold_table")),
    output:
        *result_files("spectral_threshold_table"),
        **result_named_files("spectral_threshold_table"),
    log:
        result_log("spectral_threshold_table"),
    benchmark:
        result_benchmark("spectral_threshold_table")
    wildcard_constraints:
        **result_constraints("spectral_threshold_table"),
    params:
        report_caption=report_caption,
        **result_params("spectral_threshold_table"),
    resources:
        **result_resources("spectral_threshold_table"),
    conda:
        ENV
    script:
        "../scripts/spectral_threshold_table.py"


rule plateau_theory_table:
    message:
        result_message("plateau_theory_table")
    localrule: True
    input:
        unpack(result_inputs("plateau_theory_table")),
    output:
        *result_files("plateau_theory_table"),
        **result_named_files("plateau_theory_table"),
    log:
        result_log("plateau_theory_table"),
    benchmark:
        result_benchmark("plateau_theory_table")
    wildcard_constraints:
        **result_constraints("plateau_theory_table"),
    params:
        report_caption=report_caption,
        **result_params("plateau_theory_table"),
    resources:
        **result_resources("plateau_theory_table"),
    conda:
        ENV
    script:
        "../scripts/plateau_theory_table.py"


rule hessian_spectrum_figure:
    message:
        result_message("hessian_spectrum_figure")
    localrule: True
    input:
        unpack(result_inputs("hessian_spectrum_figure")),
    output:
        *result_files("hessian_spectrum_figure"),
        **result_named_files("hessian_spectrum_figure"),
    log:
        result_log("hessian_spectrum_figure"),
    benchmark:
        result_benchmark("hessian_spectrum_figure")
    wildcard_constraints:
        **result_constraints("hessian_spectrum_figure"),
    params:
        report_caption=report_caption,
        **result_params("hessian_spectrum_figure"),
    resources:
        **result_resources("hessian_spectrum_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_hessian_spectrum.py"


rule hessian_delta_figure:
    message:
        result_message("hessian_delta_figure")
    localrule: True
    input:
        unpack(result_inputs("hessian_delta_figure")),
    output:
        *result_files("hessian_delta_figure"),
        **result_named_files("hessian_delta_figure"),
    log:
        result_log("hessian_delta_figure"),
    benchmark:
        result_benchmark("hessian_delta_figure")
    wildcard_constraints:
        **result_constraints("hessian_delta_figure"),
    params:
        report_caption=report_caption,
        **result_params("hessian_delta_figure"),
    resources:
        **result_resources("hessian_delta_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_hessian_delta.py"


rule hessian_trajectory_figure:
    message:
        result_message("hessian_trajectory_figure")
    localrule: True
    input:
        unpack(result_inputs("hessian_trajectory_figure")),
    output:
        *result_files("hessian_trajectory_figure"),
        **result_named_files("hessian_trajectory_figure"),
    log:
        result_log("hessian_trajectory_figure"),
    benchmark:
        result_benchmark("hessian_trajectory_figure")
    wildcard_constraints:
        **result_constraints("hessian_trajectory_figure"),
    params:
        report_caption=report_caption,
        **result_params("hessian_trajectory_figure"),
    resources:
        **result_resources("hessian_trajectory_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_hessian_trajectory.py"


rule plateau_theory_figure:
    message:
        result_message("plateau_theory_figure")
    localrule: True
    input:
        unpack(result_inputs("plateau_theory_figure")),
    output:
        *result_files("plateau_theory_figure"),
        **result_named_files("plateau_theory_figure"),
    log:
        result_log("plateau_theory_figure"),
    benchmark:
        result_benchmark("plateau_theory_figure")
    wildcard_constraints:
        **result_constraints("plateau_theory_figure"),
    params:
        report_caption=report_caption,
        **result_params("plateau_theory_figure"),
    resources:
        **result_resources("plateau_theory_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_plateau_theory.py"


rule landscape_figure:
    message:
        result_message("landscape_figure")
    localrule: True
    input:
        unpack(result_inputs("landscape_figure")),
    output:
        *result_files("landscape_figure"),
        **result_named_files("landscape_figure"),
    log:
        result_log("landscape_figure"),
    benchmark:
        result_benchmark("landscape_figure")
    wildcard_constraints:
        **result_constraints("landscape_figure"),
    params:
        report_caption=report_caption,
        **result_params("landscape_figure"),
    resources:
        **result_resources("landscape_figure"),
    conda:
        ENV
    script:
        "../scripts/plot_landscape.py"
