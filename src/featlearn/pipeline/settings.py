"""Typed settings, one frozen dataclass per kind of job, built once from the config.

The numerics take these objects whole (attribute access; nothing is looked up in an untyped
dict), the rules pass them as ``asdict()`` (a dict in field order, which Snakemake compares to
decide reruns) and each job writes the same dict into its provenance record.

Merging: ``defaults`` < per-activation ``learning_rate`` / ``steps`` < the section's own keys.
Every field remembers the config key it came from, so that an option a kind of job does not
support fails in the config check naming that key (``unsupported``), instead of being ignored.
"""

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar

CONVENTIONS = (
    "link",
    "m",
    "a",
    "b",
    "r0",
    "init",
    "theta_star",
    "noise",
    "n_test",
    "dtype",
    "loss_normalisation",
    "freeze_rho",
    "escape_rho",
    "success_rho",
    "record_points",
)
"""The model/data/training conventions of ``defaults`` (shared/conventions.md)."""


def _frozen(value):
    """Lists from YAML as tuples (hashable, immutable)."""
    return tuple(_frozen(v) for v in value) if isinstance(value, list) else value


@dataclass(frozen=True, kw_only=True)
class JobSettings:
    """Common behaviour: ``asdict``, ``from_dict`` and the support check."""

    SUPPORTED: ClassVar[dict] = {}
    """field -> the values this kind of job implements (anything else is a config error)."""
    origin: dict = field(default_factory=dict, compare=False, repr=False)

    def asdict(self):
        """Fields in declaration order (the origin map left out)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "origin"}

    @classmethod
    def from_dict(cls, values):
        """Rebuild from ``asdict()`` (in a job script); unknown or missing keys raise TypeError."""
        return cls(**{k: _frozen(v) for k, v in values.items()})

    def unsupported(self):
        """[(config key, message)] for every field set to a value this kind of job does not implement."""
        out = []
        for name, allowed in self.SUPPORTED.items():
            value = getattr(self, name)
            ok = allowed(value) if callable(allowed) else value in allowed
            if not ok:
                what = (
                    getattr(allowed, "__doc__", None) if callable(allowed) else ", ".join(map(repr, allowed))
                )
                job = type(self).__name__.removesuffix("Settings")
                message = f"{value!r} is not supported by the {job} jobs ({what})"
                out.append((self.origin.get(name, name), message))
        return out


def _scalar(value):
    """a scalar (one neuron)"""
    return not isinstance(value, tuple)


@dataclass(frozen=True, kw_only=True)
class ModelSettings(JobSettings):
    """What defines the model and its training: the identity (seed, experiment) of its random
    draws, σ, η, the link, the network's width, fixed a and b, the init and the loss."""

    seed: int
    experiment: str
    activation: str
    lr: float
    link: str
    m: int
    a: float | tuple
    b: float | tuple
    r0: float
    init: str
    noise: float
    loss_normalisation: str


@dataclass(frozen=True, kw_only=True)
class GDSettings(ModelSettings):
    """One GD trial: the model, its data (teacher frame, test set, dtype of X), the step budget and
    what is recorded (freeze, escape and success levels, recording grid)."""

    steps: int
    theta_star: str
    n_test: int
    dtype: str
    freeze_rho: float
    escape_rho: float
    success_rho: float
    record_points: int


@dataclass(frozen=True, kw_only=True)
class SweepSettings(GDSettings):
    """A sweep cell: ``trials`` GD trials at one (d, δ) (d and δ come from the cell's name); a
    trial that has not escaped stops at a certified local minimum once ‖∇R̂‖ ≤ certify_grad_tol
    (None: never), checked every ``certify_every`` steps (``gd.engine.Schedule``)."""

    trials: int
    certify_grad_tol: float | None
    certify_every: int


@dataclass(frozen=True, kw_only=True)
class LongRunSettings(GDSettings):
    """One long GD run (Fig 2) on a stored dataset; never frozen."""

    d: int
    delta: float


RESTRICTED_GD = {"init": ("random",), "loss_normalisation": ("none",)}
"""Restricted GD (hard component projected out) starts from a random init and descends the plain
½-MSE: its Hessian is that of R̂, not of R̂/Var y."""


@dataclass(frozen=True, kw_only=True)
class RestrictedSettings(GDSettings):
    """Restricted GD at dimension d (hard component projected out), ``seeds`` runs per cell, the
    k smallest Hessian eigenvalues recorded."""

    SUPPORTED: ClassVar[dict] = RESTRICTED_GD
    d: int
    seeds: int
    k: int


@dataclass(frozen=True, kw_only=True)
class PlateauSettings(RestrictedSettings):
    """Hessian plateau cell: restricted GD to ‖∇R̂‖ ≤ grad_tol, spectra at ``checkpoints``."""

    grad_tol: float
    checkpoints: int


@dataclass(frozen=True, kw_only=True)
class TheoryModelSettings(ModelSettings):
    """A theory model (DMFT, fixed point): one neuron, one single-index link.

    The DMFT describes restricted GD from a random init on the plain ½-MSE; its law does not
    depend on the teacher frame (rotation invariance) nor on the dtype of X (there is no X).
    """

    SUPPORTED: ClassVar[dict] = {**RESTRICTED_GD, "m": (1,), "a": _scalar, "b": _scalar}


@dataclass(frozen=True, kw_only=True)
class RefereeSettings(RestrictedSettings):
    """The referee of a theory model: restricted GD over the DMFT horizon (``steps``), spectra at
    ``spectrum_steps``."""

    SUPPORTED: ClassVar[dict] = {**RESTRICTED_GD, "m": (1,)}
    spectrum_steps: tuple


@dataclass(frozen=True, kw_only=True)
class EscapeSettings(GDSettings):
    """The linear stage of the escape (shared/theory/escape.md) for a theory model: ``trials``
    unrestricted GD runs at dimension d over ``steps`` steps with their exact linearisation, and
    the hard-coordinate process from the DMFT with ``n_paths`` paths over its first ``dmft_steps``
    steps (the DMFT's O(N T²) memory caps its horizon; the runs and their linearisation, O(T) each,
    go on to ``steps``)."""

    SUPPORTED: ClassVar[dict] = {**RESTRICTED_GD, "m": (1,)}
    d: int
    trials: int
    n_paths: int
    dmft_steps: int


@dataclass(frozen=True, kw_only=True)
class PredictionSettings(TheoryModelSettings):
    """The predicted success probability of a theory model (``theory.prediction``): the restricted
    DMFT with ``n_paths`` paths over ``horizon`` steps, ``samples`` paths of the hard-coordinate
    process, the critical overlaps ``rho_c`` and the dimensions ``d`` it is evaluated at."""

    horizon: int
    n_paths: int
    samples: int
    rho_c: tuple
    d: tuple


@dataclass(frozen=True, kw_only=True)
class TwoStageSettings(TheoryModelSettings):
    """The two-stage prediction of a theory model (``theory.two_stage``): kicks ``m0`` of the DMFT
    with signal (``n_paths`` paths, ``horizon`` steps) at each matching time ``t0``, ``samples``
    draws of the hard coordinate at t₀, the dimensions ``d``, and the sweeps' escape and success
    levels."""

    horizon: int
    n_paths: int
    samples: int
    t0: tuple
    m0: tuple
    d: tuple
    escape_rho: float
    success_rho: float


@dataclass(frozen=True, kw_only=True)
class SpectralSettings(JobSettings):
    """The simulated overlap of the optimal spectral estimator at one d."""

    seed: int
    link: str
    noise: float
    delta: tuple
    trials: int


def _merged(config, activation, section_path, section, keys):
    """(values, origin) of ``keys``: defaults < learning_rate/steps of the activation < section."""
    values, origin = {}, {}
    for key in CONVENTIONS:
        values[key], origin[key] = config["defaults"][key], f"defaults.{key}"
    for key, table in (("lr", "learning_rate"), ("steps", "steps")):
        if activation in config[table]:
            values[key], origin[key] = config[table][activation], f"{table}.{activation}"
    for key, value in section.items():
        values[key], origin[key] = value, f"{section_path}.{key}"
    values["activation"] = activation
    chosen = {k: _frozen(values[k]) for k in keys if k in values}
    return chosen, {k: origin.get(k, f"{section_path}.{k}") for k in keys}


def _build(cls, config, section_path, section, experiment, **fixed):
    """``cls`` for one section of the config: the merged conventions, the base seed, the
    experiment name (part of every trial's identity) and ``fixed`` values."""
    names = [f.name for f in dataclasses.fields(cls) if f.name != "origin"]
    activation = fixed.pop("activation", None) or section["activation"]
    values, origin = _merged(config, activation, section_path, section, names)
    values.update(fixed, seed=config["seed"], experiment=experiment)
    missing = [k for k in names if k not in values]
    if missing:
        raise KeyError(f"{section_path}: no value for {', '.join(missing)}")
    return cls(**values, origin=origin)


def sweep_settings(config, name):
    """The settings of every cell of sweep ``name`` (its d and δ lists and figure left out)."""
    spec = {k: v for k, v in config["sweeps"][name].items() if k not in ("d", "delta", "figure", "paper")}
    stop = config["early_stop"]
    return _build(
        SweepSettings,
        config,
        f"sweeps.{name}",
        spec,
        name,
        certify_grad_tol=stop["grad_tol"],
        certify_every=stop["check_every"],
    )


def long_run_settings(config, name):
    return _build(LongRunSettings, config, f"grokking.{name}", config["grokking"][name], name)


def plateau_settings(config, activation):
    """Hessian plateau cells of ``activation``: float64 (eigenvalues near 0)."""
    spec = {k: config["hessian"][k] for k in ("d", "seeds", "grad_tol", "checkpoints", "k")}
    return _build(PlateauSettings, config, "hessian", spec, "hessian", activation=activation, dtype="float64")


def _theory_spec(config, model):
    return {k: v for k, v in config["theory"]["models"][model].items() if k not in ("delta", "n_paths")}


def theory_model_settings(config, model):
    """A theory model (its δ grid and N are passed separately, so the settings name the model only)."""
    spec = _theory_spec(config, model)
    return _build(TheoryModelSettings, config, f"theory.models.{model}", spec, f"theory_{model}")


def referee_settings(config, model):
    """The referee of ``model``: its data identity is the model's, in float64, for ``horizon`` steps."""
    sim = config["theory"]["simulation"]
    return _build(
        RefereeSettings,
        config,
        f"theory.models.{model}",
        _theory_spec(config, model),
        f"theory_{model}",
        dtype="float64",
        steps=config["theory"]["horizon"],
        **{k: _frozen(sim[k]) for k in ("d", "seeds", "spectrum_steps", "k")},
    )


def escape_settings(config, model):
    """The linear-stage cells of ``model``: its conventions, in float64, for ``escape.horizon`` steps."""
    spec = config["escape"]
    return _build(
        EscapeSettings,
        config,
        f"theory.models.{model}",
        _theory_spec(config, model),
        f"escape_{model}",
        dtype="float64",
        steps=spec["horizon"],
        d=spec["d"],
        trials=spec["trials"],
        n_paths=spec["n_paths"],
        dmft_steps=min(spec["horizon"], spec.get("dmft_horizon", spec["horizon"])),
    )


def _escape_model_settings(cls, config, model, kind, keys, **fixed):
    """``cls`` for the cells of ``model`` in ``escape.<kind>``: the model's conventions and that
    section's ``keys`` (experiment ``<kind>_<model>``)."""
    spec = config["escape"][kind]
    return _build(
        cls,
        config,
        f"theory.models.{model}",
        _theory_spec(config, model),
        f"{kind}_{model}",
        **{k: _frozen(spec[k]) for k in keys},
        **fixed,
    )


def prediction_settings(config, model):
    """The prediction cells of ``model``: its conventions, and ``escape.prediction``'s numerics."""
    return _escape_model_settings(
        PredictionSettings, config, model, "prediction", ("horizon", "n_paths", "samples", "rho_c", "d")
    )


def two_stage_settings(config, model):
    """The two-stage cells of ``model``: its conventions and escape/success levels, the dimensions
    of ``escape.prediction``, and ``escape.two_stage``'s numerics."""
    keys = ("horizon", "n_paths", "samples", "t0", "m0")
    d = _frozen(config["escape"]["prediction"]["d"])
    return _escape_model_settings(TwoStageSettings, config, model, "two_stage", keys, d=d)


DEFAULT_REPORT = {"none": "half_mse", "second_moment": "relative", "variance": "variance"}
"""The normalisation a convention reports its loss in, by default the one it trains with."""


def convention_keys(config, name):
    """The keys of convention ``name`` (``conventions.grid``), every one filled in: the model
    conventions from ``defaults``, η and budget factors 1, the final-ρ success rule, and the
    report normalisation of its training loss."""
    keys = {k: config["defaults"][k] for k in ("link", "loss_normalisation", "a", "b", "r0")}
    keys |= {"lr_factor": 1.0, "steps_factor": 1.0, "success": "final"}
    keys |= config["conventions"]["grid"][name]
    keys.setdefault("report", DEFAULT_REPORT[keys["loss_normalisation"]])
    return keys


def convention_settings(config, name, activation, steps=None):
    """A scan of convention ``name`` for ``activation``: its keys over ``defaults``, η and budget
    scaled from ``learning_rate``/``steps`` (or ``steps`` given), ``conventions.trials`` trials.
    Every convention shares the experiment "conventions", so all of them see the same data and
    initialisations at a given (activation, d, δ, trial): the comparisons are paired."""
    keys = convention_keys(config, name)
    spec = {k: keys[k] for k in ("link", "loss_normalisation", "a", "b", "r0")}
    spec["lr"] = config["learning_rate"][activation] * keys["lr_factor"]
    spec["steps"] = steps or int(round(config["steps"][activation] * keys["steps_factor"]))
    spec["trials"] = config["conventions"]["trials"]
    stop = config["early_stop"]
    return _build(
        SweepSettings,
        config,
        f"conventions.grid.{name}",
        spec,
        "conventions",
        activation=activation,
        certify_grad_tol=stop["grad_tol"],
        certify_every=stop["check_every"],
    )


def spectral_settings(config):
    spec = config["spectral"]
    return SpectralSettings(
        seed=config["seed"],
        link=spec["link"],
        noise=spec["noise"],
        delta=_frozen(spec["delta"]),
        trials=spec["trials"],
        origin={k: f"spectral.{k}" for k in ("link", "noise", "delta", "trials")},
    )
