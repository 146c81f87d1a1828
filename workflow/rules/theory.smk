# Stage 2d: theory (DMFT + outlier equations, static fixed point) and its simulated referee.


localrules:
    theory_tables,


THEORY_CODE = code("dmft.py", "loss.py", "outlier.py", "theory.py", "activations.py", "links.py", "seeds.py")


rule dmft_model:
    message:
        "DMFT of restricted GD and its Hessian outlier: model {wildcards.model}, N={wildcards.paths}"
    input:
        THEORY_CODE,
        cache=f"{NUMBA_CACHE}/ready",
    output:
        f"{RESULTS}/theory/dmft/{{model}}_N{{paths}}.npz",
    log:
        f"{RESULTS}/logs/theory/dmft_{{model}}_N{{paths}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/dmft_{{model}}_N{{paths}}.tsv"
    wildcard_constraints:
        paths=r"[0-9]+",
    params:
        settings=lambda w: theory_settings(w.model),
        deltas=lambda w: config["theory"]["models"][w.model]["delta"],
        horizon=config["theory"]["horizon"],
        cache_dir=lambda w, input: os.path.dirname(input.cache),
    threads: config["threads"]
    resources:
        # path-major response array: N (T+1)(T+2)/2 doubles
        mem_mb=lambda w: 1000 + int(8e-6 * int(w.paths) * (config["theory"]["horizon"] + 2) ** 2 / 2 * 1.5),
        runtime=60,
    conda:
        ENV
    script:
        "../scripts/dmft_model.py"


rule fixed_point_model:
    message:
        "Static RS fixed point, AT check and outlier: model {wildcards.model}"
    input:
        code("fixed_point.py", "loss.py", "outlier.py", "theory.py", "activations.py", "links.py"),
        cache=f"{NUMBA_CACHE}/ready",
    output:
        f"{RESULTS}/theory/fixed_point/{{model}}.npz",
    log:
        f"{RESULTS}/logs/theory/fixed_point_{{model}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/fixed_point_{{model}}.tsv"
    params:
        settings=lambda w: theory_settings(w.model),
        deltas=lambda w: config["theory"]["models"][w.model]["delta"],
        nodes=config["theory"]["fixed_point_nodes"],
        cache_dir=lambda w, input: os.path.dirname(input.cache),
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
        ENGINE_SOURCES,
        code("hessian.py", "plateau.py", "outlier.py", "loss.py", "theory_sim.py"),
        cache=f"{NUMBA_CACHE}/ready",
    output:
        f"{RESULTS}/theory/sim/{{model}}/delta{{delta}}.npz",
    log:
        f"{RESULTS}/logs/theory/sim_{{model}}_delta{{delta}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/sim_{{model}}_delta{{delta}}.tsv"
    wildcard_constraints:
        delta=r"[0-9.]+",
    params:
        settings=lambda w: theory_settings(w.model),
        sim=canonical({k: v for k, v in config["theory"]["simulation"].items() if k != "delta"}),
        horizon=config["theory"]["horizon"],
        cache_dir=lambda w, input: os.path.dirname(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: 2000 + int(2.4e-5 * config["theory"]["simulation"]["d"] ** 2 * float(w.delta)),
        runtime=60,
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
        code=code("theory_compare.py", "theory.py"),
    output:
        [f"{RESULTS}/tables/{name}" for name in THEORY_TABLES],
    log:
        f"{RESULTS}/logs/theory/tables.log",
    benchmark:
        f"{RESULTS}/benchmarks/theory/tables.tsv"
    params:
        models=canonical({m: theory_settings(m) for m in config["theory"]["models"]}),
        theory=canonical({k: config["theory"][k] for k in ("report_steps", "validation", "horizon")}),
        paths=canonical({m: main_paths(m) for m in config["theory"]["models"]}),
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
        code=code("plotting_theory.py", "theory_compare.py"),
        # only the δ_NN figure draws the empirical thresholds from the table
        table=lambda w: f"{RESULTS}/tables/theory_thresholds.csv" if w.stem == "fig10_delta_nn" else [],
    output:
        figure_files("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem="|".join(THEORY_FIGURES),
    params:
        models=canonical({m: theory_settings(m) for m in config["theory"]["models"]}),
        paths=canonical({m: main_paths(m) for m in config["theory"]["models"]}),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/plot_theory.py"
