# The convention explorer (overlay workflow/configs/conventions.yaml): which modelling conventions
# reproduce the paper's three headline numbers.  Nothing here runs without a `conventions:` section.


localrules:
    convention_table,


rule convention_table:
    message:
        "Conventions ranked against the paper's three numbers: table and figure"
    input:
        code=code("convention_table.py"),
        scans=convention_scans(),
        plateaus=convention_plateaus(),
    output:
        table=table_output(f"{RESULTS}/tables/conventions.csv"),
        scans=table_output(f"{RESULTS}/tables/convention_scans.csv"),
        figure=figure_outputs("extra_conventions"),
    log:
        f"{RESULTS}/logs/conventions/table.log",
    benchmark:
        f"{RESULTS}/benchmarks/conventions/table.tsv"
    params:
        report_caption=report_caption,
        conventions=lambda w: {name: typed.convention_keys(config, name) for name in config["conventions"]["grid"]},
        paper=canonical(config["conventions"]["paper"]) if "conventions" in config else {},
        tolerance=canonical(config["conventions"]["tolerance"]) if "conventions" in config else {},
    conda:
        ENV
    script:
        "../scripts/convention_table.py"
