# Stage 2d: theory (DMFT + outlier equations, static fixed point) and its simulated referee.


localrules:
    theory_tables,


rule dmft_model:
    message:
        "DMFT of restricted GD and its Hessian outlier: model {wildcards.model}, N={wildcards.n_paths}"
    input:
        code=code("dmft_model.py"),
        cache=kernel_cache("dmft_model"),
    output:
        f"{RESULTS}/theory/dmft/{{model}}_N{{n_paths}}.npz",
    log:
        f"{RESULTS}/logs/theory/dmft_{{model}}_N{{n_paths}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/dmft_{{model}}_N{{n_paths}}.tsv"
    wildcard_constraints:
        n_paths=r"[0-9]+",
    params:
        settings=lambda w: typed.theory_model_settings(config, w.model).asdict(),
        deltas=lambda w: config["theory"]["models"][w.model]["delta"],
        horizon=config["theory"]["horizon"],
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: estimate.dmft_mem_mb(int(w.n_paths), config["theory"]["horizon"]),
        runtime=lambda w: estimate.minutes(
            estimate.dmft_seconds(
                int(w.n_paths), config["theory"]["horizon"], len(config["theory"]["models"][w.model]["delta"])
            )
        ),
    conda:
        ENV
    script:
        "../scripts/dmft_model.py"


rule fixed_point_model:
    message:
        "Static RS fixed point, AT check and outlier: model {wildcards.model}"
    input:
        code=code("fixed_point_model.py"),
        cache=kernel_cache("fixed_point_model"),
    output:
        f"{RESULTS}/theory/fixed_point/{{model}}.npz",
    log:
        f"{RESULTS}/logs/theory/fixed_point_{{model}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/fixed_point_{{model}}.tsv"
    params:
        settings=lambda w: typed.theory_model_settings(config, w.model).asdict(),
        deltas=lambda w: config["theory"]["models"][w.model]["delta"],
        nodes=config["theory"]["fixed_point_nodes"],
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=1500,
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/fixed_point_model.py"


rule theory_sim_cell:
    message:
        "Restricted GD over the DMFT horizon (the referee): model {wildcards.model}, delta={wildcards.delta}"
    input:
        code=code("theory_sim_cell.py"),
        cache=kernel_cache("theory_sim_cell"),
    output:
        f"{RESULTS}/theory/sim/{{model}}/delta{{delta}}.npz",
    log:
        f"{RESULTS}/logs/theory/sim_{{model}}_delta{{delta}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/sim_{{model}}_delta{{delta}}.tsv"
    wildcard_constraints:
        delta=r"[0-9.]+",
    params:
        settings=lambda w: typed.referee_settings(config, w.model).asdict(),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: referee_mem_mb(w),
        runtime=lambda w: referee_runtime(w),
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
