# Stage 2c: Hessian spectrum at the restricted-GD plateau (issue: the mechanism).


localrules:
    hessian_table,
    spectral_threshold_table,
    landscape_figure,


rule hessian_cell:
    message:
        "Restricted GD plateau and Hessian spectrum: {wildcards.activation}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("hessian_cell", "hessian_cell")),
        code=code("hessian_cell.py"),
    output:
        job_output("hessian_cell"),
    log:
        job_log("hessian_cell"),
    benchmark:
        job_benchmark("hessian_cell")
    wildcard_constraints:
        **job_constraints("hessian_cell"),
    params:
        **job_params("hessian_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("hessian_cell"),
        runtime=job_runtime("hessian_cell"),
    conda:
        ENV
    script:
        "../scripts/hessian_cell.py"


use rule hessian_cell as spectral_threshold_cell with:
    message:
        "Plateau spectral threshold: {wildcards.activation}, d={wildcards.d}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("spectral_threshold_cell", "hessian_cell")),
        code=code("hessian_cell.py"),
    output:
        job_output("spectral_threshold_cell"),
    log:
        job_log("spectral_threshold_cell"),
    benchmark:
        job_benchmark("spectral_threshold_cell")
    wildcard_constraints:
        **job_constraints("spectral_threshold_cell"),
    params:
        **job_params("spectral_threshold_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    resources:
        mem_mb=job_mem_mb("spectral_threshold_cell"),
        runtime=job_runtime("spectral_threshold_cell"),


rule spectral_threshold_table:
    message:
        "The plateau's spectral threshold delta_spec(d) per activation (docs/finite_size.md, (F14))"
    input:
        unpack(spectral_threshold_inputs),
        code=code("spectral_threshold_table.py"),
        theory=f"{RESULTS}/tables/theory_thresholds.csv",
    output:
        table_output(f"{RESULTS}/tables/spectral_threshold.csv"),
    log:
        f"{RESULTS}/logs/hessian/spectral_threshold.log",
    benchmark:
        f"{RESULTS}/benchmarks/hessian/spectral_threshold.tsv"
    params:
        report_caption=report_caption,
        theory=canonical(config["theory"]["hessian_overlay"]),
        activations=sorted(config.get("spectral_threshold", {}).get("delta", {})),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/spectral_threshold_table.py"


rule hessian_table:
    message:
        "Collecting the plateau spectra of {wildcards.activation}"
    input:
        code=code("hessian_table.py"),
        cells=lambda w: job_outputs("hessian_cell", activation=w.activation),
    output:
        table_output(f"{RESULTS}/tables/hessian_{{activation}}.csv"),
    log:
        f"{RESULTS}/logs/hessian/table_{{activation}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/hessian/table_{{activation}}.tsv"
    params:
        report_caption=report_caption,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/hessian_table.py"


rule landscape_cell:
    message:
        "Fig 3: the risk on planes through the plateau, {wildcards.activation}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("landscape_cell", "landscape_cell")),
        code=code("landscape_cell.py"),
    output:
        job_output("landscape_cell"),
    log:
        job_log("landscape_cell"),
    benchmark:
        job_benchmark("landscape_cell")
    wildcard_constraints:
        **job_constraints("landscape_cell"),
    params:
        **job_params("landscape_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("landscape_cell"),
        runtime=job_runtime("landscape_cell"),
    conda:
        ENV
    script:
        "../scripts/landscape_cell.py"


rule landscape_figure:
    message:
        "Drawing Fig 3 (the measured landscape)"
    input:
        code=code("plot_landscape.py"),
        cells=landscape_cells(),
    output:
        figure_outputs(config["landscape"]["stem"]),
    log:
        f"{RESULTS}/logs/figures/{config['landscape']['stem']}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{config['landscape']['stem']}.tsv"
    params:
        report_caption=report_caption,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/plot_landscape.py"
