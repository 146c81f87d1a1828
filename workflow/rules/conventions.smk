# The convention explorer (overlay workflow/configs/conventions.yaml): which modelling conventions
# reproduce the paper's three headline numbers.  Nothing here runs without a `conventions:` section.


localrules:
    convention_table,


rule convention_scan:
    message:
        "Convention {wildcards.convention}: auto-refined delta scan, {wildcards.activation}, d={wildcards.d}"
    input:
        code=code("convention_scan.py"),
        cache=kernel_cache("convention_scan"),
    output:
        f"{RESULTS}/conventions/scan/{{convention}}/{{activation}}_d{{d}}.npz",
    log:
        f"{RESULTS}/logs/conventions/scan_{{convention}}_{{activation}}_d{{d}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/conventions/scan_{{convention}}_{{activation}}_d{{d}}.tsv"
    wildcard_constraints:
        activation=r"[a-z0-9]+",
        d=r"\d+",
    params:
        settings=lambda w: typed.convention_settings(config, w.convention, w.activation).asdict(),
        coarse=lambda w: config["conventions"]["coarse"][w.activation],
        refine=lambda w: config["conventions"]["refine"],
        rule=lambda w: typed.convention_keys(config, w.convention)["success"],
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: convention_scan_mem_mb(w),
        runtime=lambda w: convention_scan_runtime(w),
    conda:
        ENV
    script:
        "../scripts/convention_scan.py"


rule convention_plateau:
    message:
        "Convention {wildcards.convention}: the Fig 2 plateau (quadrature and a long GD run)"
    input:
        code=code("convention_plateau.py"),
        cache=kernel_cache("convention_plateau"),
    output:
        f"{RESULTS}/conventions/plateau/{{convention}}.npz",
    log:
        f"{RESULTS}/logs/conventions/plateau_{{convention}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/conventions/plateau_{{convention}}.tsv"
    params:
        settings=lambda w: convention_plateau_settings(w).asdict(),
        convention=lambda w: canonical(typed.convention_keys(config, w.convention)),
        plateau=canonical(config["conventions"]["plateau"]) if "conventions" in config else {},
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=lambda w: convention_plateau_mem_mb(w),
        runtime=lambda w: convention_plateau_runtime(w),
    conda:
        ENV
    script:
        "../scripts/convention_plateau.py"


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
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    conda:
        ENV
    script:
        "../scripts/convention_table.py"
