# Stage 4: figures, drawn from stored tables and arrays only.


localrules:
    phase_figure,
    grokking_figure,
    spectral_figure,
    hessian_spectrum_figure,
    hessian_delta_figure,
    hessian_trajectory_figure,
    sweep_escape_steps_figure,


rule phase_figure:
    message:
        "Drawing {wildcards.stem}"
    input:
        unpack(lambda w: prediction_inputs(sweep_of_figure(w.stem))),
        code=code("plot_phase.py"),
        cells=lambda w: f"{RESULTS}/tables/{sweep_of_figure(w.stem)}_cells.csv",
        thresholds=lambda w: f"{RESULTS}/tables/{sweep_of_figure(w.stem)}_thresholds.csv",
    output:
        figure_outputs("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem=stem_constraint("phase_figure"),
    params:
        report_caption=report_caption,
        title=lambda w: phase_title(w.stem),
        sweep=lambda w: sweep_of_figure(w.stem),
    conda:
        ENV
    script:
        "../scripts/plot_phase.py"


rule grokking_figure:
    message:
        "Drawing {wildcards.name}"
    input:
        code=code("plot_grokking.py"),
        run=f"{RESULTS}/grokking/{{name}}.npz",
    output:
        figure_outputs("{name}"),
    log:
        f"{RESULTS}/logs/figures/{{name}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{name}}.tsv"
    wildcard_constraints:
        name=stem_constraint("grokking_figure"),
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/plot_grokking.py"


rule spectral_figure:
    message:
        "Drawing {wildcards.stem}"
    input:
        unpack(lambda w: prediction_inputs(config["figure1"]["random"])),
        code=code("plot_spectral.py"),
        random_cells=f"{RESULTS}/tables/{config['figure1']['random']}_cells.csv",
        random_fits=f"{RESULTS}/tables/{config['figure1']['random']}_thresholds.csv",
        spectral_cells=f"{RESULTS}/tables/{config['figure1']['spectral']}_cells.csv",
        spectral_fits=f"{RESULTS}/tables/{config['figure1']['spectral']}_thresholds.csv",
        overlaps=expand(f"{RESULTS}/spectral/overlap_d{{d}}.csv", d=config["spectral"]["d"]),
        theory=f"{RESULTS}/tables/spectral_theory.csv",
        delta_alg=f"{RESULTS}/tables/delta_alg.csv",
    output:
        figure_outputs("{stem}"),
    log:
        f"{RESULTS}/logs/figures/{{stem}}.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/{{stem}}.tsv"
    wildcard_constraints:
        stem=config["figure1"]["stem"],
    params:
        report_caption=report_caption,
        link=config["spectral"]["link"],
        sweep=config["figure1"]["random"],
    conda:
        ENV
    script:
        "../scripts/plot_spectral.py"


rule hessian_spectrum_figure:
    message:
        "Drawing the plateau spectra"
    input:
        code=code("plot_hessian_spectrum.py"),
        cells=[
            f for act, pair in config["hessian"]["histogram"].items() for dl in pair
            for f in job_outputs("hessian_cell", activation=act, delta=dl)
        ],
    output:
        figure_outputs("fig7_hessian_spectrum"),
    log:
        f"{RESULTS}/logs/figures/fig7_hessian_spectrum.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/fig7_hessian_spectrum.tsv"
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/plot_hessian_spectrum.py"


rule hessian_delta_figure:
    message:
        "Drawing lambda_min and overlap vs delta"
    input:
        code=code("plot_hessian_delta.py"),
        tables=expand(f"{RESULTS}/tables/hessian_{{activation}}.csv", activation=list(config["hessian"]["delta"])),
        fixed_points=[f"{RESULTS}/theory/fixed_point/{m}.npz" for m in config["theory"]["hessian_overlay"].values()],
    output:
        figure_outputs("fig8_hessian_vs_delta"),
    log:
        f"{RESULTS}/logs/figures/fig8_hessian_vs_delta.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/fig8_hessian_vs_delta.tsv"
    params:
        report_caption=report_caption,
        overlay=canonical(config["theory"]["hessian_overlay"]),
    conda:
        ENV
    script:
        "../scripts/plot_hessian_delta.py"


rule sweep_escape_steps_figure:
    message:
        "Drawing the escape steps of the GD sweeps vs delta"
    input:
        code=code("plot_sweep_escape_steps.py"),
        tables=expand(f"{RESULTS}/tables/{{sweep}}_cells.csv", sweep=sorted(config["sweeps"])),
    output:
        figure_outputs("extra_escape_steps"),
    log:
        f"{RESULTS}/logs/figures/extra_escape_steps.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/extra_escape_steps.tsv"
    params:
        report_caption=report_caption,
        sweeps=sorted(config["sweeps"]),  # sorted: config key order must not look like a change
    conda:
        ENV
    script:
        "../scripts/plot_sweep_escape_steps.py"


rule hessian_trajectory_figure:
    message:
        "Drawing the spectrum along restricted GD"
    input:
        code=code("plot_hessian_trajectory.py"),
        cells=job_outputs("hessian_cell"),
    output:
        figure_outputs("extra_hessian_trajectory"),
    log:
        f"{RESULTS}/logs/figures/extra_hessian_trajectory.log",
    benchmark:
        f"{RESULTS}/benchmarks/figures/extra_hessian_trajectory.tsv"
    params:
        report_caption=report_caption,
    conda:
        ENV
    script:
        "../scripts/plot_hessian_trajectory.py"

