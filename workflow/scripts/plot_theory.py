from featlearn import plotting, plotting_theory
from featlearn.joblog import logger
from featlearn.results_io import read_csv
from featlearn.theory_compare import load_theory

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = load_theory(sm.input.dmft, sm.input.fixed_point, sm.input.sim)
models, paths, stem = dict(sm.params.models), sm.params.paths, sm.wildcards.stem
if stem == "fig9_dmft_vs_simulation":
    fig = plotting_theory.dmft_vs_simulation_figure(theory, models, paths)
elif stem == "fig10_outlier_vs_time":
    fig = plotting_theory.outlier_vs_time_figure(theory, models, paths)
else:
    fig = plotting_theory.delta_nn_figure(theory, models, paths, read_csv(sm.input.table))
plotting.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
