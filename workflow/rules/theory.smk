# Stage 2d: theory (DMFT + outlier equations, static fixed point) and its simulated referee.


localrules:
    theory_tables,


rule dmft_model:
    message:
        "DMFT of restricted GD and its Hessian outlier: model {wildcards.model}, N={wildcards.n_paths}"
    input:
        unpack(kernel_cache("dmft_model", "dmft_model")),
        code=code("dmft_model.py"),
    output:
        job_output("dmft_model"),
    log:
        job_log("dmft_model"),
    benchmark:
        job_benchmark("dmft_model")
    wildcard_constraints:
        **job_constraints("dmft_model"),
    params:
        **job_params("dmft_model"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("dmft_model"),
        runtime=job_runtime("dmft_model"),
    conda:
        ENV
    script:
        "../scripts/dmft_model.py"


rule fixed_point_model:
    message:
        "Static RS fixed point, AT check and outlier: model {wildcards.model}"
    input:
        unpack(kernel_cache("fixed_point_model", "fixed_point_model")),
        code=code("fixed_point_model.py"),
    output:
        job_output("fixed_point_model"),
    log:
        job_log("fixed_point_model"),
    benchmark:
        job_benchmark("fixed_point_model")
    params:
        **job_params("fixed_point_model"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("fixed_point_model"),
        runtime=job_runtime("fixed_point_model"),
    conda:
        ENV
    script:
        "../scripts/fixed_point_model.py"


rule theory_sim_cell:
    message:
        "Restricted GD over the DMFT horizon (the referee): model {wildcards.model}, delta={wildcards.delta}"
    input:
        unpack(kernel_cache("theory_sim_cell", "theory_sim_cell")),
        code=code("theory_sim_cell.py"),
    output:
        job_output("theory_sim_cell"),
    log:
        job_log("theory_sim_cell"),
    benchmark:
        job_benchmark("theory_sim_cell")
    wildcard_constraints:
        **job_constraints("theory_sim_cell"),
    params:
        **job_params("theory_sim_cell"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("theory_sim_cell"),
        runtime=job_runtime("theory_sim_cell"),
    conda:
        ENV
    script:
        "../scripts/theory_sim_cell.py"


rule theory_tables:
    message:
        "Theory thresholds and theory-vs-simulation agreement tables"
    input:
        **theory_inputs(),
        thresholds=f"{RESULTS}/tables/thresholds.csv",
        code=code("theory_tables.py"),
    output:
        [table_output(f"{RESULTS}/tables/{name}") for name in THEORY_TABLES],
    log:
        f"{RESULTS}/logs/theory/tables.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/tables.tsv"
    params:
        report_caption=report_caption,
        models=theory_model_params()[0],
        n_paths=theory_model_params()[1],
        report_steps=config["theory"]["report_steps"],
        horizon=config["theory"]["horizon"],
        validation=canonical(config["theory"]["validation"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/theory_tables.py"


rule theory_figure:
    message:
        "Drawing {wildcards.stem}"
    input:
        **theory_inputs(),
        code=code("plot_theory.py"),
        # only the δ_NN figure draws the empirical thresholds from the table
        table=lambda w: f"{RESULTS}/tables/theory_thresholds.csv" if THEORY_KINDS[w.stem] == "delta_nn" else [],
    output:
        figure_outputs("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem=stem_constraint("theory_figure"),
    params:
        report_caption=report_caption,
        models=theory_model_params()[0],
        n_paths=theory_model_params()[1],
        kind=lambda w: THEORY_KINDS[w.stem],
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/plot_theory.py"
