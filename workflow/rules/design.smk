# The designer (docs/design.md, overlay workflow/configs/design.yaml): per design the theory's
# thresholds, the activation family minimised, the overlay of the GD sweeps the theory asks for (read
# from the theory alone, so pass 2 does not rewrite it), and the design table with GD's delta50 of the
# sweeps that name a design.


localrules:
    design_sweeps,
    design_table,


rule design_theory:
    message:
        "Design {wildcards.design}: delta_NN(inf) of the fixed point, min_t delta_NN(t) of the DMFT"
    input:
        unpack(kernel_cache("design_theory", "design_theory")),
        code=code("design_theory.py"),
    output:
        job_output("design_theory"),
    log:
        job_log("design_theory"),
    benchmark:
        job_benchmark("design_theory")
    wildcard_constraints:
        **job_constraints("design_theory"),
    params:
        **job_params("design_theory"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("design_theory"),
        runtime=job_runtime("design_theory"),
    conda:
        ENV
    script:
        "../scripts/design_theory.py"


rule design_family:
    message:
        "Design family: delta_NN(inf) minimised over its parameter"
    input:
        code=code("design_family.py"),
    output:
        job_output("design_family"),
    log:
        job_log("design_family"),
    benchmark:
        job_benchmark("design_family")
    wildcard_constraints:
        **job_constraints("design_family"),
    params:
        **job_params("design_family"),
    threads: 1
    resources:
        mem_mb=job_mem_mb("design_family"),
        runtime=job_runtime("design_family"),
    conda:
        ENV
    script:
        "../scripts/design_family.py"


rule design_sweeps:
    message:
        "The GD sweeps the theory asks for: its best and worst designs and the included ones (an overlay for pass 2)"
    input:
        theory=lambda w: job_outputs("design_theory"),
        code=code("design_sweeps.py"),
    output:
        f"{RESULTS}/design/design_sweeps.yaml",
    log:
        f"{RESULTS}/logs/design/sweeps.log",
    params:
        design=canonical(config.get("design", {})),
        settings=lambda w: design_settings_params(),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/design_sweeps.py"


rule design_table:
    message:
        "Design table and figure"
    input:
        unpack(design_inputs),
        code=code("design_table.py"),
    output:
        table=table_output(f"{RESULTS}/tables/design.csv"),
        figure=figure_outputs(config["design"]["stem"]) if config.get("design") else [],
    log:
        f"{RESULTS}/logs/design/table.log",
    benchmark:
        f"{RESULTS}/benchmarks/design/table.tsv"
    params:
        report_caption=report_caption,
        design=canonical(config.get("design", {})),
        settings=lambda w: design_settings_params(),
        swept=lambda w: design_sweeps(),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/design_table.py"
