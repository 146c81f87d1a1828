from featlearn.analysis.theory_tables import load_theory
from featlearn.io.job import logger
from featlearn.io.results import read_csv
from featlearn.io.settings import JobSettings
from featlearn.plotting import figures, theory_figures

sm = snakemake  # noqa: F821
log = logger(sm.log[0])
theory = load_theory(sm.input.dmft, sm.input.fixed_point, sm.input.sim)
models = {name: JobSettings.from_dict(s) for name, s in sm.params.models.items()}
n_paths, kind = sm.params.n_paths, sm.params.kind
if kind == "dmft_vs_simulation":
    fig = theory_figures.dmft_vs_simulation_figure(theory, models, n_paths)
elif kind == "outlier_vs_time":
    fig = theory_figures.outlier_vs_time_figure(theory, models, n_paths)
else:
    fig = theory_figures.delta_nn_figure(theory, models, n_paths, read_csv(sm.input.table))
figures.save(fig, sm.output)
log(f"wrote {list(sm.output)}")
