# The convention explorer (overlay workflow/configs/conventions.yaml): which modelling conventions
# reproduce the paper's three headline numbers.  Nothing here runs without a `conventions:` section.


localrules:
    convention_table,


rule convention_scan:
    message:
        "Convention {wildcards.convention}: auto-refined delta scan, {wildcards.activation}, d={wildcards.d}"
    input:
        unpack(kernel_cache("convention_scan", "convention_scan")),
        code=code("convention_scan.py"),
    output:
        job_output("convention_scan"),
    log:
        job_log("convention_scan"),
    benchmark:
        job_benchmark("convention_scan")
    wildcard_constraints:
        **job_constraints("convention_scan"),
    params:
        **job_params("convention_scan"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("convention_scan"),
        runtime=job_runtime("convention_scan"),
    conda:
        ENV
    script:
        "../scripts/convention_scan.py"


rule convention_plateau:
    message:
        "Convention {wildcards.convention}: the Fig 2 plateau (quadrature and a long GD run)"
    input:
        unpack(kernel_cache("convention_plateau", "convention_plateau")),
        code=code("convention_plateau.py"),
    output:
        job_output("convention_plateau"),
    log:
        job_log("convention_plateau"),
    benchmark:
        job_benchmark("convention_plateau")
    params:
        **job_params("convention_plateau"),
        cache_dir=lambda w, input: kernel_cache_dir(input.cache),
    threads: config["threads"]
    resources:
        mem_mb=job_mem_mb("convention_plateau"),
        runtime=job_runtime("convention_plateau"),
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
