# Stage 2c: Hessian spectrum at the restricted-GD plateau (issue: the mechanism).


localrules:
    hessian_table,
    landscape_figure,


rule hessian_cell:
    message:
        "Restricted GD plateau and Hessian spectrum: {wildcards.activation}, delta={wildcards.delta}"
    input:
        code=code("hessian_cell.py"),
        cache=kernel_cache("hessian_cell"),
    output:
        f"{RESULTS}/hessian/{{activation}}/delta{{delta}}.npz",
    log:
        f"{RESULTS}/logs/hessian/{{activation}}/delta{{delta}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/hessian/{{activation}}/delta{{delta}}.tsv"
    wildcard_constraints:
        delta=r"[0-9.]+",
    params:
        settings=lambda w: typed.plateau_settings(config, w.activation).asdict(),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: plateau_mem_mb(w),
        runtime=lambda w: plateau_runtime(w),
    conda:
        ENV
    script:
        "../scripts/hessian_cell.py"


rule hessian_table:
    message:
        "Collecting the plateau spectra of {wildcards.activation}"
    input:
        code=code("hessian_table.py"),
        cells=lambda w: [
            f"{RESULTS}/hessian/{w.activation}/delta{fmt(dl)}.npz" for dl in config["hessian"]["delta"][w.activation]
        ],
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
        code=code("landscape_cell.py"),
        cache=kernel_cache("landscape_cell"),
    output:
        f"{RESULTS}/landscape/{{activation}}/delta{{delta}}.npz",
    log:
        f"{RESULTS}/logs/landscape/{{activation}}/delta{{delta}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/landscape/{{activation}}/delta{{delta}}.tsv"
    wildcard_constraints:
        delta=r"[0-9.]+",
    params:
        settings=lambda w: typed.plateau_settings(config, w.activation).asdict(),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: plateau_mem_mb(w),
        runtime=lambda w: landscape_runtime(w),
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
