# Stage 4: the claims table (each claim of the paper, what this run measured and the verdict, computed
# by featlearn.analysis.claims; its parts from its entry in featlearn.pipeline.result_rules) and the
# reproduction manuscript (paper/manuscript.typ): the numbers the text cites
# (results/paper/numbers.json) and the PDF (typst, from pip).


rule claims_table:
    message:
        result_message("claims_table")
    localrule: True
    input:
        unpack(result_inputs("claims_table")),
    output:
        *result_files("claims_table"),
        **result_named_files("claims_table"),
    log:
        result_log("claims_table"),
    benchmark:
        result_benchmark("claims_table")
    wildcard_constraints:
        **result_constraints("claims_table"),
    params:
        report_caption=report_caption,
        **result_params("claims_table"),
    resources:
        **result_resources("claims_table"),
    conda:
        ENV
    script:
        "../scripts/claims_table.py"



rule manuscript:
    message:
        "Building the reproduction manuscript (typst)"
    localrule: True
    input:
        unpack(claims_inputs),
        code=code("build_manuscript"),
        source="paper/manuscript.typ",
        layout="paper/layout.typ",
        claims=table(result_rules.CLAIMS),
        prediction=table(result_rules.DELTA50_PREDICTION),
        landscape=job_outputs("landscape_cell"),
        figures=[figure_files(f.stem)[0] for f in FIGURES],
        benchmarks=[job.benchmark for job in registry.compute_jobs(config)],
        index=[f"{RESULTS}/tables/{name}" for group in index_groups() for name in group["files"]],
    output:
        numbers=f"{RESULTS}/paper/numbers.json",
        pdf=report(f"{RESULTS}/paper/manuscript.pdf", caption=REPORT_CAPTION, category="Manuscript"),
        page=f"{RESULTS}/paper/manuscript_page1.png",
    log:
        f"{RESULTS}/logs/paper/manuscript.log",
    benchmark:
        f"{RESULTS}/benchmarks/paper/manuscript.tsv"
    params:
        report_caption="The reproduction manuscript: claim by claim, what the paper reports, what this run measured, and the verdict.",
        paper=canonical(config["claims"]["paper"]),
        config_name=lambda w: " + ".join(os.path.basename(str(f)) for f in workflow.overwrite_configfiles) or "config.yaml",
        figures=lambda w: {f.stem: figure_files(f.stem)[0] for f in FIGURES},
        design_stem=config.get("design", {}).get("stem"),
        phase_lines={sweep: value for sweep, (value, _) in result_rules.phase_lines(config).items()},
        index=index_groups(),
    resources:
        mem_mb=2000,
        runtime=10,
    conda:
        ENV
    script:
        "../scripts/build_manuscript.py"
