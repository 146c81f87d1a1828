# Stage 5: the reproduction manuscript (paper/manuscript.typ): the numbers the text cites
# (results/paper/numbers.json) and the PDF (typst, from pip); its claims table comes from results.smk.


rule manuscript:
    message:
        "Building the reproduction manuscript (typst)"
    localrule: True
    input:
        unpack(claims_inputs),
        code=code("build_manuscript"),
        source="paper/manuscript.typ",
        claims=f"{RESULTS}/tables/claims.csv",
        prediction=f"{RESULTS}/tables/delta50_prediction.csv",
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
