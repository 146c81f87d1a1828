"""The job registry: every kind of compute job, declared once.

A :class:`Kind` (keyword arguments only) says, for one rule that computes (a GD cell, a DMFT solve, ...):

* ``path``: where its jobs write, as a pattern over the rule's wildcards.  The output is
  ``results/<path><suffix>``, the log ``results/logs/<path>.log`` and the benchmark
  ``results/benchmarks/<path>.tsv``;
* ``cells``: the wildcards of every job the config asks for (strings, as Snakemake sees them);
* ``settings``: its settings class, exactly the fields its code reads, declared in place with
  ``settings_class`` (``featlearn.io.settings``) from the field groups of
  ``featlearn.pipeline.settings`` (a class several kinds share is declared above the registry), and
  where each field comes from: ``conventions_from``, the config section whose keys override
  ``defaults`` for every convention (a pattern over the wildcards; the convention rules are
  ``settings.convention``), and ``sources``, the source of each other field (``settings.resolve``: a
  config key pattern over the wildcards, or a function giving the value and its key).  The
  settings' ``asdict()`` is the job's ``params.settings``, which Snakemake compares to decide
  reruns, and from which the job rebuilds them; ``experiment`` names the job's draws (a seed stream
  of its own);
* ``sources`` also names every other value its code reads: a name that is not a settings field is
  a param of its own (``params.<name>``), from a source of the same kind, so that every param has
  its origin;
* ``cost``: its memory (MB) and upper-bound runtime (seconds), a function of ``featlearn.pipeline.resources``;
* ``cells_from``: the config key its cells come from (named by the memory pre-flight and the
  config checks), a pattern over the wildcards;
* ``script``, ``what``, ``warm``, ``inputs``: what its rule runs (``workflow/scripts/<script>.py``,
  named by every kind that names no ``compute`` function), says, and reads;
* or, in place of a script, ``compute``: the dotted name of a function ``f(settings, *, log,
  **cell)`` of one cell (the cell's numeric wildcards that are not settings fields) returning its
  arrays, which the generic script ``run_compute`` runs and saves (``featlearn.io.cells``).  Its
  code stamp and numba cache are then keyed by the rule (:attr:`Kind.program`) and cover the
  function's module (:attr:`Kind.imports`).

Each kind's rule is one literal block in a stage file of ``workflow/rules/`` (``rule NAME:``), whose
parts come from its kind here by name (``job_*`` in ``common.smk``) and which writes out its script
(tests/test_workflow.py checks that the two agree); the cost estimate (``featlearn.plan``), the
memory pre-flight (``featlearn.pipeline.checks.memory``) and the tests read this table too, so the
list of jobs and their resources exist once.
"""

import itertools
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

from featlearn.io.settings import settings_class
from featlearn.pipeline import resources
from featlearn.pipeline import settings as typed
from featlearn.pipeline.settings import (
    CERTIFY,
    DATA,
    FIXED_POINT,
    MODEL,
    ONE_NEURON_GD,
    PLAIN_MODEL,
    PLATEAU,
    RECORDING,
    RESTRICTED_GD,
    THEORY,
    THEORY_FIXES,
)

RESULTS = "results"
NUMERIC = {"d": r"\d+", "delta": r"[0-9.]+", "block": r"\d+", "n_paths": r"[0-9]+"}
"""The constraint of each numeric wildcard (a dimension, a δ, a block index, a number of DMFT paths)."""


def fmt(value):
    """Canonical text of a number in a file name (δ = 6.0 -> '6')."""
    return f"{float(value):g}"


@dataclass(frozen=True, kw_only=True)
class Kind:
    rule: str
    path: str
    cells: Callable  # config -> [dict of wildcard strings]
    settings: type  # the settings class its code reads (``featlearn.io.settings.settings_class``)
    cost: Callable  # (config, wildcards, settings) -> (mem_mb, seconds)
    cells_from: str  # the config key a cell comes from (a pattern over the wildcards)
    conventions_from: str | None = None  # the section whose keys override ``defaults`` (a pattern)
    experiment: str = ""  # the experiment name of its draws (a pattern over the wildcards)
    sources: dict = field(default_factory=dict)  # param or settings field -> its source
    suffix: str = ".npz"
    compute: str = ""  # a job's function, "featlearn.<module>.<name>", run by the script run_compute
    script: str = ""  # workflow/scripts/<script>.py runs a job (a compute kind's: run_compute)
    what: str = ""  # what a job does (its message, followed by its wildcards)
    warm: bool = True  # runs numba kernels: gets a warm kernel cache (and its model kernel)
    inputs: tuple = ()  # (name, pattern over the wildcards) of what a job reads besides its code
    constraints: tuple = ()  # (wildcard, regex) besides the numeric wildcards' (NUMERIC)
    threads: str = "config"  # "config": config["threads"]; "one": 1

    def __post_init__(self):
        if bool(self.script) == bool(self.compute) and self.script != "run_compute":  # (a replace() keeps it)
            raise ValueError(f"{self.rule}: a kind names its script or its compute function, one of them")
        if self.compute:  # run by the generic script; the function is a param: renaming it reruns the jobs
            object.__setattr__(self, "script", "run_compute")
            object.__setattr__(self, "sources", {**self.sources, "compute": typed.fixed(self.compute)})
            self._check_compute()

    def _check_compute(self):
        """A ``compute`` kind's function lives in a featlearn module (else its code stamp would not
        cover it), and ``run_compute`` can run it: a warm job (its kernel cache is a param) writing
        one npz."""
        parts = self.compute.split(".")
        module = Path(__file__).resolve().parents[1].joinpath(*parts[1:-1])
        if parts[0] != "featlearn" or len(parts) < 3 or not module.with_suffix(".py").is_file():
            raise ValueError(f"{self.rule}: compute names no function of a featlearn module: {self.compute}")
        if not self.warm or self.suffix != ".npz":
            raise ValueError(f"{self.rule}: a compute kind is warm and writes one .npz (run_compute.py)")

    @property
    def program(self):
        """The name of the code its jobs run, which keys their code stamp and numba cache: the
        script's, or for a kind that names its ``compute`` function the rule's."""
        return self.rule if self.compute else self.script

    @property
    def imports(self):
        """The modules its script imports by name (``deps``): the ``compute`` function's."""
        return (self.compute.rpartition(".")[0],) if self.compute else ()

    def build(self, config, w):
        """The settings of the job at wildcards ``w`` (a dict, Snakemake's wildcards or a namespace),
        each field from its source or its convention (``settings.build``)."""
        params = set(self.param_names())
        sources = {name: source for name, source in self.sources.items() if name not in params}
        return typed.build(
            self.settings,
            config,
            _as_dict(w),
            conventions_from=self.conventions_from,
            experiment=self.experiment,
            sources=sources,
        )

    def param_names(self):
        """The params its code reads besides its settings: the names of ``sources`` that are not
        settings fields (nor conventions the settings check, ``SUPPORTED``)."""
        fields = {*self.settings.field_names(), *self.settings.SUPPORTED}
        return [name for name in self.sources if name not in fields]

    def params(self, config, w):
        """({param: value}, the config keys they come from) of the job at ``w``: ``settings`` (as a
        dict) and each other param (:meth:`param_names`, ``settings.resolve``; an origin is a key, a
        tuple of keys or None, and a list-valued key stands for its elements)."""
        s, x = self.build(config, w), _as_dict(w)
        extra = {name: typed.resolve(config, name, self.sources[name], x) for name in self.param_names()}
        origins = [*(s.origin.get(name) for name in s.field_names()), *(key for _, key in extra.values())]
        params = {"settings": s.asdict(), **{name: value for name, (value, _) in extra.items()}}
        return params, typed.origin_keys(origins)

    def output(self, **wildcards):
        return f"{RESULTS}/{self.path.format(**wildcards)}{self.suffix}"

    def log(self, **wildcards):
        return f"{RESULTS}/logs/{self.path.format(**wildcards)}.log"

    def benchmark(self, **wildcards):
        return f"{RESULTS}/benchmarks/{self.path.format(**wildcards)}.tsv"

    def pattern(self, what="output"):
        """The rule's output, log or benchmark pattern (Snakemake wildcards in braces)."""
        return getattr(self, what)(**{name: f"{{{name}}}" for name in self.wildcard_names()})

    def wildcard_names(self):
        return [name for _, name, _, _ in string.Formatter().parse(self.path) if name]

    def message(self):
        """Snakemake's message of a job: what it does and its wildcards."""
        return ", ".join([self.what, *(f"{name}={{wildcards.{name}}}" for name in self.wildcard_names())])

    def wildcard_constraints(self):
        """{wildcard: regex}: ``NUMERIC``'s for the numeric wildcards of its path, and ``constraints``."""
        return {name: NUMERIC[name] for name in self.wildcard_names() if name in NUMERIC} | dict(
            self.constraints
        )

    def job_threads(self, config):
        return config["threads"] if self.threads == "config" else 1


def _as_dict(w):
    return w if isinstance(w, dict) else dict(w.items()) if hasattr(w, "items") else vars(w)


# --- cells ---------------------------------------------------------------------------------------


def _sweep_blocks(config):
    return [
        {"sweep": name, "d": str(d), "delta": fmt(dl), "block": str(b)}
        for name, spec in config["sweeps"].items()
        for d in spec["d"]
        for dl in typed.sweep_deltas(config, name, d)
        for b in range(len(typed.sweep_blocks(config, name)))
    ]


def _grid(**axes):
    """Every combination of the values of ``axes`` ({wildcard: values}, the last varying fastest),
    as wildcard strings (δ by :func:`fmt`)."""
    combos = itertools.product(*axes.values())
    return [{k: fmt(v) if k == "delta" else str(v) for k, v in zip(axes, c, strict=True)} for c in combos]


def _anatomy_cells(config):
    """The anatomy's cells: every (sweep, d, δ) of ``escape_anatomy`` (its d list, each sweep's δ)."""
    spec = config.get("escape_anatomy")
    if not spec:
        return []
    return [
        cell
        for sweep, deltas in spec["delta"].items()
        for cell in _grid(sweep=[sweep], d=spec["d"], delta=deltas)
    ]


def _delta_cells(name, grids):
    """The cells {name: key, "delta": δ} of ``grids`` ({key: its δ list})."""
    return [cell for key, deltas in grids.items() for cell in _grid(**{name: [key]}, delta=deltas)]


def _spectral_threshold_cells(config):
    scan = config.get("spectral_threshold") or {"d": [], "delta": {}}
    return [
        c for act, deltas in scan["delta"].items() for c in _grid(activation=[act], d=scan["d"], delta=deltas)
    ]


def main_n_paths(config, model):
    """The model's main number of DMFT paths N (its own ``n_paths`` or the global one)."""
    return config["theory"]["models"][model].get("n_paths", config["theory"]["n_paths"])


def theory_n_paths(config, model):
    """Every N the DMFT of ``model`` is solved with (the main value first)."""
    main = main_n_paths(config, model)
    return [main] + [n for n in config["theory"]["n_paths_scan"] if n != main]


def _dmft_cells(config):
    return [
        c for m in config["theory"]["models"] for c in _grid(model=[m], n_paths=theory_n_paths(config, m))
    ]


def _predicted_cells(kind):
    """The cells of the models of ``escape.<kind>`` (none without that section)."""
    return lambda config: _delta_cells(
        "model", {m: s["delta"] for m, s in (config["escape"].get(kind) or {"models": {}})["models"].items()}
    )


def _finite_n_cells(config):
    """Every (model, d, δ) of ``escape.finite_n`` (its d list, each model's δ list)."""
    spec = (config.get("escape") or {}).get("finite_n")
    if not spec:
        return []
    models = spec["models"].items()
    return [cell for m, model in models for cell in _grid(model=[m], d=spec["d"], delta=model["delta"])]


def _convention_scan_cells(config):
    spec = config.get("conventions")
    return _grid(convention=spec["grid"], activation=spec["activations"], d=spec["d"]) if spec else []


# --- sources: {param or settings field: a source of ``settings.resolve``} ---------------------------

_THEORY = "theory.models.{model}"
"""The section of a theory model: its conventions override ``defaults``."""
_ESCAPE = {
    **typed.FLOAT64,
    "steps": "escape.horizon",
    **{k: f"escape.{k}" for k in ("d", "trials", "n_paths")},
}
"""The escape cells' GD and DMFT: in float64, over ``escape.horizon`` steps."""


def _long_run_cost(config, w, s):
    """A long run costs what its dataset's geometry gives (``resources.long_run``)."""
    return resources.long_run(settings_of("grokking_dataset", config, name=w.name), s)


def _cell_d(config, x):
    """A cell's d (a coordinate of the cell, as a sweep's d): from no key of its own."""
    return int(x["d"]), None


_DESIGN_SEARCH = {"bracket": "design.search.bracket", "points": "design.search.points"}
_LEVEL = {"level": "theory.fixed_point_level"}


def _fixed_point_deltas(config, x):
    """A fixed-point model's δ grid: its own, and the spectral-threshold scan's δ of its activation
    where the model is that activation's ``theory.hessian_overlay`` (the plateau is compared with
    the fixed point there, docs/outlier.md "The plateau against the fixed point")."""
    model = f"theory.models.{x['model']}"
    own, activation = (
        config["theory"]["models"][x["model"]]["delta"],
        config["theory"]["models"][x["model"]]["activation"],
    )
    scan = (config.get("spectral_threshold") or {}).get("delta", {})
    if config["theory"]["hessian_overlay"].get(activation) != x["model"] or activation not in scan:
        return list(own), f"{model}.delta"
    keys = (
        f"{model}.delta",
        f"{model}.activation",
        f"theory.hessian_overlay.{activation}",
        f"spectral_threshold.delta.{activation}",
    )
    return sorted({float(v) for v in (*own, *scan[activation])}), keys


def _convention_rule(config, x):
    """The success rule of a convention: its own ``success``, else "final" (from no key)."""
    try:
        return typed.lookup(config, f"conventions.grid.{x['convention']}.success")
    except KeyError:
        return "final", None


def _convention_report(config, x):
    """The normalisation a convention reports its loss in: its own ``report``, else its training
    loss's (its ``loss_normalisation``, else ``defaults``'), ``settings.DEFAULT_REPORT``."""
    grid = f"conventions.grid.{x['convention']}"
    keys = (f"{grid}.report", f"{grid}.loss_normalisation", "defaults.loss_normalisation")
    return typed.convention_keys(config, x["convention"])["report"], typed.lookup(config, *keys)[1]


# --- the registry ----------------------------------------------------------------------------------

# The settings classes several kinds share; every other kind declares its own in place.

SweepSettings = settings_class(
    "SweepSettings",
    """A block of a sweep cell (and a convention scan): GD trials ``first_trial`` … ``first_trial +
    trials − 1`` at one (d, δ) (d and δ come from the cell's name), each from its own seed, training
    the layers ``train`` (docs/model.md, eq. (M4a)) on the loss ``loss`` (a catalogue loss; None:
    Huber's when ``huber`` (its threshold κ_H) is set, else the square loss; (M3a)); a trial that
    has not escaped stops at a certified local minimum (its Hessian in every trained parameter,
    (M7a); docs/model.md, eq. (M13): Hessian checks once ‖∇R̂‖ ≤ certify_check_grad, None: never,
    at least ``certify_every`` steps apart, safety factor ``certify_safety``, alignment tolerance
    ``certify_rho_tol``; (M14): a positive definite Hessian once ‖∇R̂‖ ≤ ``certify_grad_floor``).""",
    MODEL,
    DATA,
    RECORDING,
    ("train", "huber", "loss", "steps", "first_trial", "trials", *CERTIFY),
)

PlateauSettings = settings_class(
    "PlateauSettings",
    """Hessian plateau and Fig 3 cells: restricted GD at dimension d (hard component projected out),
    ``seeds`` runs per cell, to ‖∇R̂‖ ≤ grad_tol, spectra (k smallest eigenvalues) at ``checkpoints``.""",
    MODEL,
    DATA,
    (*PLATEAU, "checkpoints"),
    without=("loss_normalisation",),
    supported=RESTRICTED_GD,
)

EscapeSignalSettings = settings_class(
    "EscapeSignalSettings",
    """The DMFT with signal against planted-overlap GD (docs/escape.md) for a theory model: ``trials``
    planted runs at dimension d and the DMFT with ``n_paths`` paths, both over ``steps`` steps.""",
    MODEL,
    DATA,
    ("steps", "d", "trials", "n_paths"),
    without=("loss_normalisation",),
    supported=ONE_NEURON_GD,
)

KINDS = (
    Kind(
        rule="sweep_block",
        path="sweeps/{sweep}/d{d}_delta{delta}/block{block}",
        cells=_sweep_blocks,
        settings=SweepSettings,
        conventions_from="sweeps.{sweep}",
        experiment="{sweep}",
        sources={
            "steps": typed.budget_steps,
            "first_trial": typed.first_trial_of,
            "trials": typed.block_trials,
            **CERTIFY,
        },
        cost=resources.sweep_block,
        cells_from="sweeps.{sweep}",
        script="run_cell",
        what="GD sweep block",
    ),
    Kind(
        rule="grokking_dataset",
        path="data/{name}",
        cells=lambda c: _grid(name=c["grokking"]),
        settings=settings_class(
            "DatasetSettings",
            """The stored dataset and initial network of a long run at (d, δ): its draws and conventions.""",
            MODEL,
            DATA,
            ("d", "delta"),
            without=("lr", "loss_normalisation"),
            supported=PLAIN_MODEL,
        ),
        conventions_from="grokking.{name}",
        experiment="{name}",
        cost=resources.dataset,
        cells_from="grokking.{name}",
        script="make_dataset",
        what="The dataset of a long run",
        warm=False,
        suffix="",
        threads="one",
    ),
    Kind(
        rule="grokking_run",
        path="grokking/{name}",
        cells=lambda c: _grid(name=c["grokking"]),
        settings=settings_class(
            "LongRunSettings",
            """One long GD run (Fig 2) on its stored dataset (which fixes d, δ, the draws, θ⁰, a and b):
            η, the loss, the budget and the recording; never frozen.""",
            ("activation", "lr", "link", "noise", "loss_normalisation"),
            ("steps", "escape_rho", "record_points"),
            supported=PLAIN_MODEL,
        ),
        conventions_from="grokking.{name}",
        experiment="{name}",
        cost=_long_run_cost,
        cells_from="grokking.{name}",
        script="run_grokking",
        what="Long GD run",
        inputs=(("data", "results/data/{name}"),),
    ),
    Kind(
        rule="hessian_cell",
        compute="featlearn.hessian.plateau.plateau_cell",
        path="hessian/{activation}/delta{delta}",
        cells=lambda c: _delta_cells("activation", c["hessian"]["delta"]),
        settings=PlateauSettings,
        conventions_from="hessian",
        experiment="hessian",
        sources={"activation": typed.fixed("{activation}"), **typed.FLOAT64},
        cost=resources.plateau,
        cells_from="hessian.delta.{activation}",
        what="Restricted GD plateau and its Hessian spectrum",
    ),
    Kind(
        rule="spectral_threshold_cell",
        compute="featlearn.hessian.plateau.threshold_scan_cell",
        path="spectral_threshold/{activation}/d{d}_delta{delta}",
        cells=_spectral_threshold_cells,
        settings=settings_class(
            "ThresholdScanSettings",
            """A cell of the spectral-threshold scan: the plateau of :data:`PlateauSettings`, with the
            spectrum (k smallest eigenvalues) of its final state alone.""",
            MODEL,
            DATA,
            PLATEAU,
            without=("loss_normalisation",),
            supported=RESTRICTED_GD,
        ),
        conventions_from="hessian",
        experiment="spectral_threshold",
        sources={
            "activation": typed.fixed("{activation}"),
            **typed.FLOAT64,
            "d": _cell_d,
            "seeds": "spectral_threshold.seeds",
        },
        cost=resources.threshold_scan,
        cells_from="spectral_threshold.delta.{activation}",
        what="Plateau of the spectral-threshold scan",
    ),
    Kind(
        rule="landscape_cell",
        compute="featlearn.hessian.landscape.landscape_cell",
        path="landscape/{activation}/delta{delta}",
        cells=lambda c: _delta_cells("activation", {c["landscape"]["activation"]: c["landscape"]["delta"]}),
        settings=PlateauSettings,
        conventions_from="hessian",
        experiment="hessian",
        sources={"activation": typed.fixed("{activation}"), **typed.FLOAT64},
        cost=resources.landscape,
        cells_from="landscape.delta",
        what="Fig 3: the risk on planes through the plateau",
    ),
    Kind(
        rule="theory_sim_cell",
        compute="featlearn.cells.referee.trajectory_cell",
        path="theory/sim/{model}/delta{delta}",
        cells=lambda c: _delta_cells("model", c["theory"]["simulation"]["delta"]),
        settings=settings_class(
            "RefereeSettings",
            """The referee of a theory model: restricted GD over the DMFT horizon (``steps``), ``seeds`` runs,
            spectra (k smallest eigenvalues) at ``spectrum_steps``.""",
            MODEL,
            DATA,
            ("steps", "d", "seeds", "k", "spectrum_steps"),
            without=("loss_normalisation",),
            supported=ONE_NEURON_GD,
        ),
        conventions_from=_THEORY,
        experiment="theory_{model}",
        sources={
            **typed.FLOAT64,
            "steps": "theory.horizon",
            **{k: f"theory.simulation.{k}" for k in ("d", "seeds", "spectrum_steps", "k")},
        },
        cost=resources.referee,
        cells_from="theory.simulation.delta.{model}",
        what="Restricted GD over the DMFT horizon (the referee)",
    ),
    Kind(
        rule="dmft_model",
        script="dmft_model",
        path="theory/dmft/{model}_N{n_paths}",
        cells=_dmft_cells,
        settings=settings_class(
            "TheoryModelSettings",
            """A theory model's DMFT (one neuron, one single-index link): its draws, σ, η, the link, a, b,
            r₀ and the noise.""",
            MODEL,
            without=THEORY_FIXES,
            supported=THEORY,
        ),
        conventions_from=_THEORY,
        experiment="theory_{model}",
        sources={
            "deltas": "theory.models.{model}.delta",
            "horizon": "theory.horizon",
            "replicas": "theory.replicas",
        },
        cost=resources.dmft,
        cells_from="theory.models.{model}",
        what="DMFT of restricted GD and its Hessian outlier",
    ),
    Kind(
        rule="fixed_point_model",
        script="fixed_point_model",
        path="theory/fixed_point/{model}",
        cells=lambda c: _grid(model=c["theory"]["models"]),
        settings=settings_class(
            "FixedPointSettings",
            """A theory model's static fixed point: σ, the link, a and b (no GD time, no draws).""",
            ("activation", "link", "a", "b"),
            supported=FIXED_POINT,
        ),
        conventions_from=_THEORY,
        sources={"deltas": _fixed_point_deltas, **_LEVEL},
        cost=resources.fixed_point,
        cells_from="theory.models.{model}",
        what="Static RS fixed point, AT check, outlier and delta_NN(inf)",
    ),
    Kind(
        rule="escape_linear_cell",
        compute="featlearn.cells.escape.linear_stage_cell",
        path="escape/linear/{model}/delta{delta}",
        cells=lambda c: _delta_cells("model", dict(sorted(c["escape"]["cases"].items()))),
        settings=settings_class(
            "EscapeLinearSettings",
            """The linear stage of the escape (docs/escape.md) for a theory model: ``trials`` unrestricted GD
            runs at dimension d over ``steps`` steps with their exact linearisation, and the hard-coordinate
            process from the DMFT with ``n_paths`` paths over its first ``dmft_steps`` steps (the DMFT's
            O(N T²) memory caps its horizon; the runs and their linearisation, O(T) each, go on to ``steps``),
            solved ``replicas`` times with independent paths for the Monte-Carlo error of V(t).""",
            EscapeSignalSettings.field_names(),
            ("dmft_steps", "replicas"),
            supported=ONE_NEURON_GD,
        ),
        conventions_from=_THEORY,
        experiment="escape_{model}",
        sources={**_ESCAPE, "dmft_steps": typed.dmft_steps, "replicas": "theory.replicas"},
        cost=resources.escape("linear"),
        cells_from="escape.cases.{model}",
        what="Linear stage of the escape",
    ),
    Kind(
        rule="escape_anatomy_cell",
        compute="featlearn.cells.anatomy.anatomy_cell",
        path="escape/anatomy/{sweep}/d{d}_delta{delta}",
        cells=_anatomy_cells,
        settings=settings_class(
            "AnatomySettings",
            """The escape, trial by trial (docs/escape.md, "The anatomy of an escape"): trials 0 …
            ``trials`` − 1 of a sweep cell (d, δ), run as the sweep runs them and again recording every
            step up to ``dense_steps``, ``anatomy_points`` log-spaced steps and the ``window`` steps before
            escape, with restricted GD from the same start to ‖∇R̂‖ ≤ ``grad_tol``; at each recorded state
            the whole Hessian spectrum, its ``k`` smallest eigenpairs described.""",
            MODEL,
            DATA,
            ("freeze_rho", "escape_rho", "success_rho"),
            ("train", "huber", "loss", "steps", "trials", *CERTIFY),
            ("dense_steps", "anatomy_points", "window", "k", "grad_tol"),
            supported=ONE_NEURON_GD,
        ),
        conventions_from="sweeps.{sweep}",
        experiment="{sweep}",
        sources={
            "steps": typed.budget_steps,
            **CERTIFY,
            **{k: f"escape_anatomy.{k}" for k in ("trials", "dense_steps", "anatomy_points", "window", "k")},
            "grad_tol": "hessian.grad_tol",
        },
        cost=resources.anatomy,
        cells_from="escape_anatomy.delta.{sweep}",
        what="The escape's anatomy, trial by trial",
    ),
    Kind(
        rule="escape_signal_cell",
        compute="featlearn.cells.escape.signal_cell",
        path="escape/signal/{model}/delta{delta}",
        cells=lambda c: _delta_cells("model", dict(sorted(c["escape"]["signal"]["cases"].items()))),
        settings=EscapeSignalSettings,
        conventions_from=_THEORY,
        experiment="escape_{model}",
        sources={**_ESCAPE, "m0": "escape.signal.m0"},
        cost=resources.escape("signal"),
        cells_from="escape.signal.cases.{model}",
        what="DMFT with signal vs planted-overlap GD",
    ),
    Kind(
        rule="escape_prediction_cell",
        compute="featlearn.theory.prediction.prediction_cell",
        path="escape/prediction/{model}/delta{delta}",
        cells=_predicted_cells("prediction"),
        settings=settings_class(
            "PredictionSettings",
            """The predicted success probability of a theory model (``theory.prediction``): the restricted
            DMFT with ``n_paths`` paths over ``horizon`` steps, ``samples`` paths of the hard-coordinate
            process, the critical overlaps ``rho_c`` and the dimensions ``d`` it is evaluated at.""",
            MODEL,
            ("horizon", "n_paths", "samples", "rho_c", "d"),
            without=THEORY_FIXES,
            supported=THEORY,
        ),
        conventions_from=_THEORY,
        experiment="prediction_{model}",
        sources={**{k: f"escape.prediction.{k}" for k in ("horizon", "n_paths", "samples", "rho_c", "d")}},
        cost=resources.prediction,
        cells_from="escape.prediction.models.{model}",
        what="Predicted success from the linear process",
    ),
    Kind(
        rule="escape_two_stage_cell",
        compute="featlearn.theory.two_stage.two_stage_cell",
        path="escape/two_stage/{model}/delta{delta}",
        cells=_predicted_cells("two_stage"),
        settings=settings_class(
            "TwoStageSettings",
            """The two-stage prediction of a theory model (``theory.two_stage``): kicks ``m0`` of the DMFT
            with signal (``n_paths`` paths, ``horizon`` steps) at each matching time ``t0``, ``samples``
            draws of the hard coordinate at t₀, the dimensions ``d``, and the sweeps' escape and success
            levels.""",
            MODEL,
            ("horizon", "n_paths", "samples", "t0", "m0", "d", "escape_rho", "success_rho"),
            without=THEORY_FIXES,
            supported=THEORY,
        ),
        conventions_from=_THEORY,
        experiment="two_stage_{model}",
        sources={
            **{k: f"escape.two_stage.{k}" for k in ("horizon", "n_paths", "samples", "t0", "m0")},
            "d": "escape.prediction.d",
        },
        cost=resources.two_stage,
        cells_from="escape.two_stage.models.{model}",
        what="Two-stage prediction (linear process, then the kicked DMFT with signal)",
    ),
    Kind(
        rule="escape_finite_n_cell",
        compute="featlearn.theory.finite_n.finite_n_cell",
        path="escape/finite_n/{model}/d{d}_delta{delta}",
        cells=_finite_n_cells,
        settings=settings_class(
            "FiniteNSettings",
            """The prediction from the finite system's early window (``theory.finite_n``, docs/escape.md
            (E19)–(E22)) at one (d, δ) of a theory model: ``path_sets`` restricted DMFT solves with
            N = round(δd) paths over ``horizon`` steps, the aligned outlier (overlap² ≥ ``aligned``) at
            every step, ``samples`` paths of the hard-coordinate process, the critical overlaps
            ``rho_c``; the finite Hessian (E24) with its ``k`` smallest eigenpairs per step, where d is one
            of ``hessian_d``; the success level (E25), the DMFT with signal kicked at the window's end to
            the grid ``level_m0`` and followed for ``level_horizon`` steps (success: ρ ≥ ``success_rho``),
            where d is one of ``level_d``; the trial's own DMFT (E27) from ``init_quantiles`` quantiles of
            the initial hard coordinate, where d is one of ``init_d``; every solve's paths drawn by
            ``sampling``.""",
            MODEL,
            (
                "horizon",
                "path_sets",
                "samples",
                "rho_c",
                "aligned",
                "k",
                "hessian_d",
                "level_d",
                "level_horizon",
                "level_m0",
                "init_d",
                "init_quantiles",
                "sampling",
                "success_rho",
            ),
            without=THEORY_FIXES,
            supported=THEORY,
        ),
        conventions_from=_THEORY,
        experiment="finite_n_{model}",
        sources={
            "horizon": "escape.finite_n.horizon.{model}",
            "level_horizon": "escape.finite_n.level_horizon.{model}",
            "level_d": "escape.finite_n.level_d.{model}",
            "init_d": "escape.finite_n.init_d.{model}",
            **{
                k: f"escape.finite_n.{k}"
                for k in (
                    "path_sets",
                    "samples",
                    "aligned",
                    "k",
                    "hessian_d",
                    "level_m0",
                    "init_quantiles",
                    "sampling",
                )
            },
            "rho_c": "escape.prediction.rho_c",
        },
        cost=resources.finite_n,
        cells_from="escape.finite_n.models.{model}",
        what="Predicted success from the finite system's early window",
    ),
    Kind(
        rule="convention_scan",
        script="convention_scan",
        path="conventions/scan/{convention}/{activation}_d{d}",
        cells=_convention_scan_cells,
        settings=SweepSettings,
        conventions_from="conventions.grid.{convention}",
        experiment="conventions",
        sources={
            "activation": typed.fixed("{activation}"),
            "lr": typed.scaled("lr"),
            "steps": typed.scaled("steps"),
            "first_trial": typed.fixed(0),
            "trials": "conventions.trials",
            **CERTIFY,
            "coarse": "conventions.coarse.{activation}",
            "refine": "conventions.refine",
            "rule": _convention_rule,
        },
        cost=resources.convention_scan,
        cells_from="conventions.grid.{convention}",
        what="Convention scan, auto-refined in delta",
        constraints=(("activation", r"[a-z0-9]+"),),
    ),
    Kind(
        rule="convention_plateau",
        script="convention_plateau",
        path="conventions/plateau/{convention}",
        cells=lambda c: _grid(convention=c["conventions"]["grid"]) if c.get("conventions") else [],
        settings=settings_class(
            "ConventionPlateauSettings",
            """One never-frozen GD run of a convention at the plateau's (d, δ) (its population risk).""",
            MODEL,
            DATA,
            ("steps", "escape_rho", "record_points"),
            supported=PLAIN_MODEL,
        ),
        conventions_from="conventions.grid.{convention}",
        experiment="conventions",
        sources={
            "activation": "conventions.plateau.activation",
            "lr": typed.scaled("lr"),
            "steps": "conventions.plateau.steps",
            "report": _convention_report,
            "plateau_d": "conventions.plateau.d",
            "plateau_delta": "conventions.plateau.delta",
        },
        cost=resources.convention_plateau,
        cells_from="conventions.grid.{convention}",
        what="Convention's Fig 2 plateau (quadrature and a long GD run)",
    ),
    Kind(
        rule="design_theory",
        script="design_theory",
        path="design/theory/{design}",
        cells=lambda c: _grid(design=c["design"]["designs"]) if c.get("design") else [],
        settings=settings_class(
            "DesignSettings",
            """A design of the designer (``theory.design``): a theory model of one neuron (its draws, σ, η,
            the link, a, b, r₀, the loss: ``loss``, or Huber's with threshold ``huber``, or the square
            loss, and the trained layers ``train``) whose static fixed point needs a noiseless target.""",
            MODEL,
            ("huber", "loss", "train"),
            without=THEORY_FIXES,
            supported={k: v for k, v in FIXED_POINT.items() if k not in PLAIN_MODEL},
        ),
        conventions_from="design.designs.{design}",
        experiment="design_{design}",
        sources={
            "link": "design.link",
            **_DESIGN_SEARCH,
            **_LEVEL,
            **{k: f"design.dmft.{k}" for k in ("factors", "n_paths", "horizon", "replicas")},
        },
        cost=resources.design,
        cells_from="design.designs.{design}",
        what="Design: delta_NN(inf) of the fixed point, min_t delta_NN(t) of the DMFT",
        constraints=(("design", r"[A-Za-z0-9_]+"),),
    ),
    Kind(
        rule="design_family",
        script="design_family",
        path="design/{family}",
        cells=lambda c: _grid(family=["family"]) if c.get("design", {}).get("family") else [],
        settings=settings_class(
            "DesignFamilySettings",
            """The activation family of the designer (``theory.design_family``): the target link and the
            neuron's a and b (σ_α, its bounds and the numerics are the job's extra params).""",
            ("link", "a", "b"),
            supported=FIXED_POINT,
        ),
        conventions_from="design.family",
        experiment="design_family",
        sources={
            "link": "design.link",
            **_DESIGN_SEARCH,
            **_LEVEL,
            **{k: f"design.family.{k}" for k in ("expression", "parameter", "bounds", "xatol")},
        },
        cost=resources.design_family,
        cells_from="design.family",
        what="Design family: delta_NN(inf) minimised over its parameter",
        warm=False,
        suffix=".json",
        constraints=(("family", r"[A-Za-z0-9_]+"),),
        threads="one",
    ),
    Kind(
        rule="spectral_overlap",
        script="spectral_overlap",
        path="spectral/overlap_d{d}",
        cells=lambda c: _grid(d=c["spectral"]["d"]),
        settings=settings_class(
            "SpectralSettings",
            """The simulated overlap of the optimal spectral estimator at one d.""",
            ("seed", "link", "noise", "delta", "trials"),
        ),
        conventions_from="spectral",
        cost=resources.spectral,
        cells_from="spectral.d",
        what="Spectral estimator overlap",
        warm=False,
        suffix=".csv",
        threads="one",
    ),
)

KIND = {k.rule: k for k in KINDS}


@dataclass(frozen=True)
class Job:
    """One compute job of a config: its kind, wildcards, settings, threads, memory (MB) and seconds
    (``Kind.cost``), output and benchmark files, and the config key it comes from (``Kind.cells_from``)."""

    kind: Kind
    wildcards: dict
    settings: object
    threads: int
    mem_mb: int
    seconds: float
    output: str
    benchmark: str
    cells_from: str

    @property
    def rule(self):
        return self.kind.rule


def job(config, kind, wildcards):
    """The :class:`Job` of ``kind`` (a rule name or Kind) at ``wildcards`` (a dict of strings)."""
    kind = KIND[kind] if isinstance(kind, str) else kind
    s, w = kind.build(config, wildcards), dict(wildcards)
    mem_mb, seconds = kind.cost(config, SimpleNamespace(**w), s)
    where = (kind.output(**w), kind.benchmark(**w), kind.cells_from.format(**w))
    return Job(kind, w, s, kind.job_threads(config), int(mem_mb), float(seconds), *where)


def settings_of(rule, config, **wildcards):
    """The settings a job of compute rule ``rule`` at ``wildcards`` reads (a partial set of
    wildcards gives the settings its family shares, e.g. ``sweep`` alone a sweep's whole cell)."""
    return KIND[rule].build(config, wildcards)


def compute_jobs(config):
    """Every compute job ``config`` asks for, kind by kind."""
    return [job(config, kind, cell) for kind in KINDS for cell in kind.cells(config)]


CELL_COORDINATES = ("delta", "n_paths")
"""Wildcards that place a job inside its family: no settings table reads them (d is read: a sweep's
step budget grows with d, ``settings.SWEEP``)."""


def params_by_output(config):
    """{output: (params, the config keys they come from)} of every compute job of ``config`` (the
    params of a family, e.g. one sweep's cells, are built once)."""
    out, families = {}, {}
    for kind in KINDS:
        for cell in kind.cells(config):
            family = (kind.rule, *sorted((k, v) for k, v in cell.items() if k not in CELL_COORDINATES))
            if family not in families:
                families[family] = kind.params(config, cell)
            out[kind.output(**cell)] = families[family]
    return out


def outputs(config, rule, **match):
    """Output files of the jobs of ``rule`` whose wildcards include ``match``."""
    kind, wanted = KIND[rule], _grid(**{name: [value] for name, value in match.items()})[0].items()
    return [kind.output(**cell) for cell in kind.cells(config) if wanted <= cell.items()]
