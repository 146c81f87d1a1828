# The designer (docs/design.md, overlay workflow/configs/design.yaml): per design the theory's
# thresholds, the activation family minimised, the overlay of the GD sweeps the theory asks for (read
# from the theory alone, so pass 2 does not rewrite it), and the design table with GD's delta50 of the
# sweeps that name a design.


localrules:
    design_sweeps,
    design_table,


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
    conda:
        ENV
    script:
        "../scripts/design_table.py"
