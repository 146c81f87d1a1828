# Every table and figure rule: computed from stored results only, each from one template (as the
# compute rules are, jobs.smk).  An entry names what the rule does (`what`, its
# message), its script (`script`; by default `plot_<x>` for a figure rule `<x>_figure`, else the
# rule's name), what it reads besides its code (`input`; values may be input functions, and
# `inputs` is an unpacked input function), what it writes (`output`: named, or `outputs`), its log
# (`log`: the path under results/logs/ and results/benchmarks/) and what its script reads besides
# the report caption (`params`).  Rules run on the submitting machine unless `local` is False.
# A figure rule (`**FIGURE`) draws the stems the figure manifest (featlearn.pipeline.manifest) gives it.

# each theory model's settings (as dicts, sorted by name) and main N, built once
THEORY_MODELS = {m: typed.THEORY_MODEL.build(config, model=m).asdict() for m in sorted(config["theory"]["models"])}
THEORY_N_PATHS = {m: registry.main_n_paths(config, m) for m in sorted(config["theory"]["models"])}
FIGURE = dict(what="Drawing {wildcards.stem}", log="figures/{stem}", figure=True)


RESULT_RULES = {
    # --- stage 2b: the optimal spectral method (no GD): theory curve and delta_alg ---
    "spectral_theory": dict(
        what="Asymptotic spectral overlap curve and delta_alg per link",
        output=dict(
            curve=table_output(f"{RESULTS}/tables/spectral_theory.csv"),
            delta_alg=table_output(f"{RESULTS}/tables/delta_alg.csv"),
        ),
        log="spectral/theory",
        params=dict(
            link=config["spectral"]["link"],
            noise=config["spectral"]["noise"],
            delta_max=max(config["spectral"]["delta"]),
            points=config["spectral"]["theory_points"],
        ),
    ),
    # --- stage 2c: the Hessian at the restricted-GD plateau (docs/outlier.md) ---
    "hessian_table": dict(
        what="Collecting the plateau spectra of {wildcards.activation}",
        input=dict(cells=lambda w: job_outputs("hessian_cell", activation=w.activation)),
        outputs=[table_output(f"{RESULTS}/tables/hessian_{{activation}}.csv")],
        log="hessian/table_{activation}",
    ),
    "spectral_threshold_table": dict(
        what="The plateau's spectral threshold delta_spec(d) per activation (docs/finite_size.md, (F14))",
        inputs=spectral_threshold_inputs,
        input=dict(theory=f"{RESULTS}/tables/theory_thresholds.csv"),
        outputs=[table_output(f"{RESULTS}/tables/spectral_threshold.csv")],
        log="hessian/spectral_threshold",
        params=dict(
            theory=canonical(config["theory"]["hessian_overlay"]),
            activations=sorted(config.get("spectral_threshold", {}).get("delta", {})),
        ),
    ),
    "plateau_theory_table": dict(
        what="The plateau against the fixed point per observable as d -> inf, and the plateau's own threshold (docs/outlier.md, (O19)-(O21))",
        inputs=spectral_threshold_inputs,
        input=dict(
            spectral=f"{RESULTS}/tables/spectral_threshold.csv",
            theory=f"{RESULTS}/tables/theory_thresholds.csv",
            # the theory models the scan's activations are compared with (theory.hessian_overlay)
            fixed_points=[
                f"{RESULTS}/theory/fixed_point/{config['theory']['hessian_overlay'][a]}.npz"
                for a in sorted(config.get("spectral_threshold", {}).get("delta", {}))
                if a in config["theory"]["hessian_overlay"]
            ],
        ),
        outputs=[table_output(f"{RESULTS}/tables/{name}") for name in ("plateau_vs_theory.csv", "plateau_threshold.csv")],
        log="hessian/plateau_theory",
        params=dict(
            theory=canonical(config["theory"]["hessian_overlay"]),
            activations=sorted(config.get("spectral_threshold", {}).get("delta", {})),
        ),
    ),
    # --- stage 2d: theory (DMFT, outlier, static fixed point) against its simulated referee ---
    "theory_tables": dict(
        what="Theory thresholds and theory-vs-simulation agreement tables",
        input=dict(**theory_inputs(), thresholds=f"{RESULTS}/tables/thresholds.csv"),
        outputs=[
            table_output(f"{RESULTS}/tables/{name}")
            for name in ("theory_thresholds.csv", "theory_thresholds.tex", "dmft_vs_simulation.csv", "outlier_vs_simulation.csv", "bounded_link_validation.csv", "fixed_point_refinement.csv")
        ],
        log="theory/tables",
        params=dict(
            models=THEORY_MODELS,
            n_paths=THEORY_N_PATHS,
            report_steps=config["theory"]["report_steps"],
            horizon=config["theory"]["horizon"],
            validation=canonical(config["theory"]["validation"]),
        ),
    ),
    # --- stage 2e: the escape (docs/escape.md): the hard coordinate's linear stage, the DMFT with
    # signal, and the success they predict ---
    "escape_linear_table": dict(
        what="Linear stage of the escape: theory vs simulation table and figure",
        input=dict(cells=job_outputs("escape_linear_cell")),
        output=dict(
            table=table_output(f"{RESULTS}/tables/escape_linear_stage.csv"),
            referee=table_output(f"{RESULTS}/tables/escape_referee_trials.csv"),
            figure=figure_outputs("extra_escape_linear_stage"),
        ),
        log="escape/linear_table",
        params=dict(report_steps=config["escape"]["report_steps"]),
    ),
    "escape_signal_table": dict(
        what="DMFT with signal vs planted-overlap GD: table",
        input=dict(cells=job_outputs("escape_signal_cell")),
        output=dict(
            table=table_output(f"{RESULTS}/tables/escape_signal.csv"),
            runs=table_output(f"{RESULTS}/tables/escape_signal_runs.csv"),
        ),
        log="escape/signal_table",
        params=dict(report_steps=config["escape"]["report_steps"]),
        local=False,
    ),
    "escape_prediction_table": dict(
        **prediction_entry("prediction", "Predicted vs measured success and delta50(d)", "rho_c",
                           table="escape_prediction.csv", delta50="delta50_prediction.csv"),
    ),
    "escape_two_stage_table": dict(
        **prediction_entry("two_stage", "Two-stage prediction vs measured success and delta50(d)", "t0",
                           table="escape_two_stage.csv", delta50="delta50_two_stage.csv", scans="escape_two_stage_scans.csv"),
        script="escape_prediction_table",
    ),
    # --- the convention explorer (overlay workflow/configs/conventions.yaml): which modelling
    # conventions reproduce the paper's three headline numbers; nothing runs without `conventions:` ---
    "convention_table": dict(
        what="Conventions ranked against the paper's three numbers: table and figure",
        input=dict(scans=job_outputs("convention_scan"), plateaus=job_outputs("convention_plateau")),
        output=dict(
            table=table_output(f"{RESULTS}/tables/conventions.csv"),
            scans=table_output(f"{RESULTS}/tables/convention_scans.csv"),
            figure=figure_outputs("extra_conventions"),
        ),
        log="conventions/table",
        params=dict(
            conventions=lambda w: {name: typed.convention_keys(config, name) for name in config["conventions"]["grid"]},
            paper=canonical(config["conventions"]["paper"]) if "conventions" in config else {},
            tolerance=canonical(config["conventions"]["tolerance"]) if "conventions" in config else {},
        ),
    ),
    # --- finite-size analysis of the GD thresholds (docs/finite_size.md): delta50(d) per model, the
    # laws of its growth by the joint likelihood of every cell, what they decide about d -> inf ---
    "finite_size_scaling": dict(
        what="Finite-size analysis of the sweeps' thresholds: joint-likelihood laws, profiles, bootstrap, figure",
        inputs=finite_size_inputs,
        output=dict(
            table=table_output(f"{RESULTS}/tables/finite_size_scaling.csv"),
            summary=table_output(f"{RESULTS}/tables/finite_size_summary.csv"),
            points=table_output(f"{RESULTS}/tables/finite_size_points.csv"),
            collapse=table_output(f"{RESULTS}/tables/finite_size_collapse.csv"),
            decide=table_output(f"{RESULTS}/tables/finite_size_decide.csv"),
            figure=figure_outputs(config["finite_size"]["stem"]),
        ),
        log="finite_size/scaling",
        params=dict(
            models=canonical(config["finite_size"]["models"]),
            bootstrap=config["finite_size"]["bootstrap"],
            level=config["finite_size"]["level"],
            limit_range=config["finite_size"]["limit_range"],
            min_d=config["finite_size"]["min_d"],
            pricing=finite_size_pricing(),
            seed=config["seed"],
            paper=canonical(config["claims"]["paper"]),
        ),
    ),
    "finite_size_refine": dict(
        what="Second-pass delta placement around each d's crossing (an overlay, built on request)",
        inputs=finite_size_inputs,
        outputs=[f"{RESULTS}/finite_size/refine.yaml"],
        log="finite_size/refine",
        params=dict(
            models=canonical(config["finite_size"]["models"]),
            refine=canonical(config["finite_size"]["refine"]),
            grids=lambda w: finite_size_grids(),
        ),
    ),
    # --- the designer (docs/design.md, overlay workflow/configs/design.yaml): the sweeps the theory
    # asks for (read from the theory alone, so pass 2 does not rewrite them) and the design table ---
    "design_sweeps": dict(
        what="The GD sweeps the theory asks for: its best and worst designs and the included ones (an overlay for pass 2)",
        input=dict(theory=lambda w: job_outputs("design_theory")),
        outputs=[f"{RESULTS}/design/design_sweeps.yaml"],
        log="design/sweeps",
        params=dict(design=canonical(config.get("design", {})), settings=lambda w: design_settings_params()),
    ),
    "design_table": dict(
        what="Design table and figure",
        inputs=design_inputs,
        output=dict(
            table=table_output(f"{RESULTS}/tables/design.csv"),
            figure=figure_outputs(config["design"]["stem"]) if config.get("design") else [],
        ),
        log="design/table",
        params=dict(
            design=canonical(config.get("design", {})),
            settings=lambda w: design_settings_params(),
            swept=lambda w: design_sweeps(),
        ),
    ),
    # --- stage 3: cell summaries and threshold fits ---
    "aggregate_sweep": dict(
        what="Summarising sweep {wildcards.sweep} and fitting its thresholds",
        input=dict(cells=lambda w: job_outputs("sweep_block", sweep=w.sweep)),  # the blocks of every cell
        output=dict(
            cells=table_output(f"{RESULTS}/tables/{{sweep}}_cells.csv"),
            thresholds=table_output(f"{RESULTS}/tables/{{sweep}}_thresholds.csv"),
        ),
        log="aggregate/{sweep}",
        constraints=dict(sweep="|".join(config["sweeps"])),
    ),
    "threshold_table": dict(
        what="Collecting the threshold table",
        input=dict(
            # the k = 2 easy+hard sweep has no single-direction transition: it has its own table
            sweeps=[sweep_tables(name)[1] for name in config["sweeps"] if name != config["easy_hard"]["sweep"]],
            delta_alg=f"{RESULTS}/tables/delta_alg.csv",
        ),
        outputs=[table_output(f"{RESULTS}/tables/thresholds.csv")],
        log="threshold_table",
        resources=dict(mem_mb=500, runtime=5),
    ),
    # --- stage 4: figures ---
    "phase_figure": dict(
        **FIGURE,
        inputs=lambda w: prediction_inputs(sweep_of_figure(w.stem)),
        input=dict(
            cells=lambda w: sweep_tables(sweep_of_figure(w.stem))[0],
            thresholds=lambda w: sweep_tables(sweep_of_figure(w.stem))[1],
        ),
        params=dict(title=lambda w: phase_title(w.stem), sweep=lambda w: sweep_of_figure(w.stem)),
    ),
    "grokking_figure": dict(**FIGURE, input=dict(run=f"{RESULTS}/grokking/{{stem}}.npz")),
    "spectral_figure": dict(
        **FIGURE,
        inputs=lambda w: prediction_inputs(config["figure1"]["random"]),
        input=dict(
            random_cells=sweep_tables(config["figure1"]["random"])[0],
            random_fits=sweep_tables(config["figure1"]["random"])[1],
            spectral_cells=sweep_tables(config["figure1"]["spectral"])[0],
            spectral_fits=sweep_tables(config["figure1"]["spectral"])[1],
            overlaps=expand(f"{RESULTS}/spectral/overlap_d{{d}}.csv", d=config["spectral"]["d"]),
            theory=f"{RESULTS}/tables/spectral_theory.csv",
            delta_alg=f"{RESULTS}/tables/delta_alg.csv",
        ),
        params=dict(link=config["spectral"]["link"], sweep=config["figure1"]["random"]),
    ),
    "hessian_spectrum_figure": dict(
        **FIGURE,
        input=dict(
            cells=[
                f for act, pair in config["hessian"]["histogram"].items() for dl in pair
                for f in job_outputs("hessian_cell", activation=act, delta=dl)
            ],
        ),
    ),
    "hessian_delta_figure": dict(
        **FIGURE,
        input=dict(
            tables=expand(f"{RESULTS}/tables/hessian_{{activation}}.csv", activation=list(config["hessian"]["delta"])),
            fixed_points=[f"{RESULTS}/theory/fixed_point/{m}.npz" for m in config["theory"]["hessian_overlay"].values()],
        ),
        params=dict(overlay=canonical(config["theory"]["hessian_overlay"])),
    ),
    "hessian_trajectory_figure": dict(**FIGURE, input=dict(cells=job_outputs("hessian_cell"))),
    "plateau_theory_figure": dict(**FIGURE, input=dict(table=f"{RESULTS}/tables/plateau_vs_theory.csv")),
    "landscape_figure": dict(**FIGURE, input=dict(cells=job_outputs("landscape_cell"))),
    "sweep_escape_steps_figure": dict(
        **FIGURE,
        input=dict(tables=[sweep_tables(name)[0] for name in sorted(config["sweeps"])]),
        params=dict(sweeps=sorted(config["sweeps"])),  # sorted: config key order must not look like a change
    ),
    "theory_figure": dict(
        **FIGURE,
        input=dict(
            **theory_inputs(),
            # only the δ_NN figure draws the empirical thresholds from the table
            table=lambda w: f"{RESULTS}/tables/theory_thresholds.csv" if manifest.THEORY_KINDS[w.stem] == "delta_nn" else [],
        ),
        params=dict(models=THEORY_MODELS, n_paths=THEORY_N_PATHS, kind=lambda w: manifest.THEORY_KINDS[w.stem]),
        local=False,
    ),
    "width_figure": dict(
        **FIGURE,
        input=dict(
            cells=[sweep_tables(s)[0] for group in config["width"]["groups"].values() for s in group],
            fits=[sweep_tables(s)[1] for group in config["width"]["groups"].values() for s in group],
        ),
        params=dict(
            groups=config["width"]["groups"],
            widths={name: typed.SWEEP.build(config, sweep=name).m for g in config["width"]["groups"].values() for name in g},
        ),
    ),
    "easy_hard_figure": dict(
        what="Drawing easy vs hard direction learning",
        input=dict(cells=lambda w: job_outputs("sweep_block", sweep=config["easy_hard"]["sweep"])),
        output=dict(
            figure=figure_outputs(config["easy_hard"]["stem"]),
            table=table_output(f"{RESULTS}/tables/{config['easy_hard']['stem']}_learning_steps.csv"),
        ),
        log=f"figures/{config['easy_hard']['stem']}",
        params=dict(level=config["easy_hard"]["learned_overlap"]),
    ),
    # --- stage 5: the claims table with computed verdicts (the manuscript: paper.smk) ---
    "claims_table": dict(
        what="The paper's claims against the results: verdicts",
        inputs=claims_inputs,
        outputs=[table_output(f"{RESULTS}/tables/claims.csv")],
        log="paper/claims",
        params=dict(
            tolerance=canonical(config["claims"]["tolerance"]),
            paper=canonical(config["claims"]["paper"]),
            roles=lambda w: canonical(manifest.claim_roles(config)),  # which sweeps and models each claim reads
        ),
    ),
}


for name, entry in RESULT_RULES.items():
    entry.setdefault("script", f"plot_{name.removesuffix('_figure')}" if name.endswith("_figure") else name)

# The loop variable is called `rule` for the reason given in jobs.smk (the script directive is
# evaluated again when a job runs, with `rule` the job's rule name).
for rule in RESULT_RULES:

    rule:
        name:
            rule
        message:
            RESULT_RULES[rule]["what"]
        localrule: RESULT_RULES[rule].get("local", True)
        input:
            unpack(RESULT_RULES[rule].get("inputs", lambda w: {})),
            code=code(f"{RESULT_RULES[rule]['script']}.py"),
            **RESULT_RULES[rule].get("input", {}),
        output:
            *(figure_outputs("{stem}") if RESULT_RULES[rule].get("figure") else RESULT_RULES[rule].get("outputs", [])),
            **RESULT_RULES[rule].get("output", {}),
        log:
            f"{RESULTS}/logs/{RESULT_RULES[rule]['log']}.log",
        benchmark:
            f"{RESULTS}/benchmarks/{RESULT_RULES[rule]['log']}.tsv"
        wildcard_constraints:
            **RESULT_RULES[rule].get("constraints", {}),
            **({"stem": stem_constraint(rule)} if RESULT_RULES[rule].get("figure") else {}),
        params:
            report_caption=report_caption,
            **RESULT_RULES[rule].get("params", {}),
        resources:
            **RESULT_RULES[rule].get("resources", {}),
        conda:
            ENV
        script:
            f"../scripts/{RESULT_RULES[rule]['script']}.py"
