"""Typed settings, one frozen dataclass per kind of job, holding exactly what that job reads.

The numerics take these objects whole (attribute access; nothing is looked up in an untyped
dict), the rules pass them as ``asdict()`` (a dict in field order, which Snakemake compares to
decide reruns) and each job writes the same dict into its provenance record.  Because Snakemake
reruns a job when its ``params`` change, a settings class must carry only the fields its job's
code reads: a field that is not read would rerun the job for an edit that cannot change its
result.  Each class is therefore *composed* from named parts (:data:`MODEL`, :data:`DATA`,
:data:`RECORDING`, ...) minus what its job never reads, not inherited; the workflow test checks
with a tracked run that every field is read (``FEATLEARN_SETTINGS_READS`` below).

Merging: ``defaults`` < per-activation ``learning_rate`` / ``steps`` < the section's own keys.
Every field remembers the config key it came from (``origin``), and every kind of job declares the
values it implements (``SUPPORTED``), checked on the merged config values, so that an option a kind
of job does not support fails in the config check naming its key instead of being ignored.
"""

import atexit
import dataclasses
import functools
import json
import os
from dataclasses import dataclass, field

from featlearn.model.layers import trains_second_layer
from featlearn.model.loss_choice import chosen_loss
from featlearn.pipeline import resources

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
    "train",
    "huber",
    "loss",
)
"""The model/data/training conventions of ``defaults`` (docs/model.md)."""

OPTIONAL_CONVENTIONS = {"train": ("theta",), "huber": None, "loss": None}
"""Conventions ``defaults`` may leave out, with their value then."""

MODEL = (
    "seed",
    "experiment",
    "activation",
    "lr",
    "link",
    "m",
    "a",
    "b",
    "r0",
    "init",
    "noise",
    "loss_normalisation",
)
"""What defines the model and its training: the identity (seed, experiment) of its random draws,
σ, η, the link, the network's width, a and b (at the start, where trained), the init and the loss
normalisation."""
DATA = ("theta_star", "n_test", "dtype")
"""The data of a GD run: the teacher frame, the test-set size and the dtype of X."""
RECORDING = ("freeze_rho", "escape_rho", "success_rho", "record_points")
"""What a GD trial records: its freeze, escape and success levels and its recording grid size."""

READS_ENV = "FEATLEARN_SETTINGS_READS"
"""If set, a file to which every job process appends, at exit, the fields of each settings object it
rebuilt (``from_dict``) and which of them its code read (one JSON line per object)."""

_TRACKED = []


def lookup(config, *keys):
    """(value, key) of the first of the dotted config ``keys`` that ``config`` holds (an integer key,
    such as a d of ``delta_at``, written as its digits); KeyError naming them all where none is."""
    for key in keys:
        node = config
        for part in key.split("."):
            if isinstance(node, dict) and part not in node and part.isdigit():
                part = int(part)
            if not isinstance(node, dict) or part not in node:
                break
            node = node[part]
        else:
            return node, key
    raise KeyError(f"none of {', '.join(keys)} is in the config")


def frozen(value):
    """Lists from YAML as tuples (hashable, immutable)."""
    return tuple(frozen(v) for v in value) if isinstance(value, list | tuple) else value


def _report_reads():
    path = os.environ.get(READS_ENV)
    if not path or not _TRACKED:
        return
    with open(path, "a") as f:
        for obj in _TRACKED:
            record = {"class": type(obj).__name__, "fields": obj.field_names(), "read": sorted(obj.reads())}
            f.write(json.dumps(record) + "\n")


atexit.register(_report_reads)


@dataclass(frozen=True, kw_only=True, repr=False)
class JobSettings:
    """Common behaviour: ``asdict``, ``from_dict``, the support check and read tracking."""

    SUPPORTED = {}
    """config convention -> the values this kind of job implements (anything else is a config error)."""
    origin: dict = field(default_factory=dict, compare=False)
    """field -> the config key it came from (a tuple of keys for a value derived from several)."""
    checked: dict = field(default_factory=dict, compare=False)
    """The merged config values of the ``SUPPORTED`` conventions (fields or not)."""

    def __getattribute__(self, name):
        state = object.__getattribute__(self, "__dict__")
        if "_reads" in state and name in state:
            state["_reads"].add(name)
        return object.__getattribute__(self, name)

    def __repr__(self):
        values = ", ".join(f"{k}={v!r}" for k, v in self.asdict().items())
        return f"{type(self).__name__}({values})"

    @classmethod
    @functools.cache
    def field_names(cls):
        return tuple(f.name for f in dataclasses.fields(cls) if f.name not in ("origin", "checked"))

    def asdict(self):
        """Fields in declaration order (origin and checked values left out; not counted as reads)."""
        return {name: object.__getattribute__(self, name) for name in self.field_names()}

    def reads(self):
        """The fields read since ``from_dict`` (empty for objects built otherwise)."""
        return set(object.__getattribute__(self, "__dict__").get("_reads", ()))

    @classmethod
    def from_dict(cls, values):
        """Rebuild from ``asdict()`` (in a job script), tracking which fields the job reads;
        unknown or missing keys raise TypeError."""
        obj = cls(**{k: frozen(v) for k, v in values.items()})
        object.__setattr__(obj, "_reads", set())
        _TRACKED.append(obj)
        return obj

    def config_key(self, name, default=None):
        """The config key field ``name`` came from (the first, for a value derived from several);
        ``default`` (else the name itself) where it came from none."""
        key = self.origin.get(name, default or name)
        return key if isinstance(key, str) else key[0]

    def unsupported(self):
        """[(config key, message)] for every convention set to a value this kind of job does not implement."""
        out = []
        for name, allowed in self.SUPPORTED.items():
            value = self.checked[name]
            ok = allowed(value) if callable(allowed) else value in allowed
            if not ok:
                what = allowed.__doc__ if callable(allowed) else ", ".join(map(repr, allowed))
                job = type(self).__name__.removesuffix("Settings")
                message = f"{value!r} is not supported by the {job} jobs ({what})"
                out.append((self.config_key(name), message))
        return out


def compose(name, doc, *parts, without=(), supported=None):
    """A settings class whose fields are the ``parts`` (tuples of names) in order, less ``without``:
    composition by naming what a job reads, instead of inheriting what a parent class holds."""
    names = [n for part in parts for n in part if n not in without]
    cls = dataclasses.make_dataclass(
        name,
        [(n, object) for n in names],
        bases=(JobSettings,),
        frozen=True,
        kw_only=True,
        repr=False,
        namespace={"__doc__": doc, "SUPPORTED": supported or {}},
    )
    cls.__module__ = __name__
    return cls


def _scalar(value):
    """a scalar (one neuron)"""
    return not isinstance(value, tuple)


def _noiseless(value):
    """noise 0: the static fixed point solves the noiseless problem"""
    return value == 0


def _first_layer_only(value):
    """train: [theta]: a trained second layer is implemented in the GD sweeps and the designs"""
    return not trains_second_layer(value)


def _no_huber(value):
    """huber: null (the square loss): Huber's loss is implemented in the GD sweeps and the designs"""
    return value is None


def _square_loss(value):
    """loss: square: other losses are implemented in the GD sweeps and the designs"""
    return value in (None, "square")


PLAIN_MODEL = {"train": _first_layer_only, "huber": _no_huber, "loss": _square_loss}
"""Jobs that implement neither a trained second layer nor a loss other than the square loss."""

RESTRICTED_GD = {"init": ("random",), "loss_normalisation": ("none",), **PLAIN_MODEL}
"""Restricted GD (hard component projected out) starts from a random init and descends the plain
½-MSE: its Hessian is that of R̂, not of R̂/Var y; its Hessian and the theory are those of Θ alone
(a and b fixed) and of the square loss."""

THEORY = {**RESTRICTED_GD, "m": (1,), "a": _scalar, "b": _scalar}
"""The DMFT describes restricted GD of one neuron from a random init on the plain ½-MSE; its law
does not depend on the teacher frame (rotation invariance) nor on the dtype of X (there is no X)."""

_FIXED_BY_THEORY = ("m", "init", "loss_normalisation")
"""Conventions a theory job never reads: ``THEORY`` admits a single value of each."""
_FIXED_BY_RESTRICTED = ("loss_normalisation",)

SweepSettings = compose(
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
    (
        "train",
        "huber",
        "loss",
        "steps",
        "first_trial",
        "trials",
        "certify_check_grad",
        "certify_every",
        "certify_safety",
        "certify_rho_tol",
        "certify_grad_floor",
    ),
)

DatasetSettings = compose(
    "DatasetSettings",
    """The stored dataset and initial network of a long run at (d, δ): its draws and conventions.""",
    MODEL,
    DATA,
    ("d", "delta"),
    without=("lr", "loss_normalisation"),
    supported=PLAIN_MODEL,
)

LongRunSettings = compose(
    "LongRunSettings",
    """One long GD run (Fig 2) on its stored dataset (which fixes d, δ, the draws, θ⁰, a and b):
    η, the loss, the budget and the recording; never frozen.""",
    ("activation", "lr", "link", "noise", "loss_normalisation", "steps", "escape_rho", "record_points"),
    supported=PLAIN_MODEL,
)

ConventionPlateauSettings = compose(
    "ConventionPlateauSettings",
    """One never-frozen GD run of a convention at the plateau's (d, δ) (its population risk).""",
    MODEL,
    DATA,
    ("steps", "escape_rho", "record_points"),
    supported=PLAIN_MODEL,
)

PlateauSettings = compose(
    "PlateauSettings",
    """Hessian plateau and Fig 3 cells: restricted GD at dimension d (hard component projected out),
    ``seeds`` runs per cell, to ‖∇R̂‖ ≤ grad_tol, spectra (k smallest eigenvalues) at ``checkpoints``.""",
    MODEL,
    DATA,
    ("steps", "d", "seeds", "k", "grad_tol", "checkpoints"),
    without=_FIXED_BY_RESTRICTED,
    supported=RESTRICTED_GD,
)

RefereeSettings = compose(
    "RefereeSettings",
    """The referee of a theory model: restricted GD over the DMFT horizon (``steps``), ``seeds`` runs,
    spectra (k smallest eigenvalues) at ``spectrum_steps``.""",
    MODEL,
    DATA,
    ("steps", "d", "seeds", "k", "spectrum_steps"),
    without=_FIXED_BY_RESTRICTED,
    supported={**RESTRICTED_GD, "m": (1,)},
)

TheoryModelSettings = compose(
    "TheoryModelSettings",
    """A theory model's DMFT (one neuron, one single-index link): its draws, σ, η, the link, a, b,
    r₀ and the noise.""",
    MODEL,
    without=_FIXED_BY_THEORY,
    supported=THEORY,
)

FixedPointSettings = compose(
    "FixedPointSettings",
    """A theory model's static fixed point: σ, the link, a and b (no GD time, no draws).""",
    ("activation", "link", "a", "b"),
    supported={**THEORY, "noise": _noiseless},
)

DesignSettings = compose(
    "DesignSettings",
    """A design of the designer (``theory.design``): a theory model of one neuron (its draws, σ, η,
    the link, a, b, r₀, the loss: ``loss``, or Huber's with threshold ``huber``, or the square
    loss, and the trained layers ``train``) whose static fixed point needs a noiseless target.""",
    MODEL,
    ("huber", "loss", "train"),
    without=_FIXED_BY_THEORY,
    supported={
        **{k: v for k, v in THEORY.items() if k not in ("huber", "loss", "train")},
        "noise": _noiseless,
    },
)

DesignFamilySettings = compose(
    "DesignFamilySettings",
    """The activation family of the designer (``theory.design_family``): the target link and the
    neuron's a and b (σ_α, its bounds and the numerics are the job's extra params).""",
    ("link", "a", "b"),
    supported={**THEORY, "noise": _noiseless},
)

_ESCAPE = (MODEL, DATA, ("steps", "d", "trials", "n_paths"))

EscapeLinearSettings = compose(
    "EscapeLinearSettings",
    """The linear stage of the escape (docs/escape.md) for a theory model: ``trials`` unrestricted GD
    runs at dimension d over ``steps`` steps with their exact linearisation, and the hard-coordinate
    process from the DMFT with ``n_paths`` paths over its first ``dmft_steps`` steps (the DMFT's
    O(N T²) memory caps its horizon; the runs and their linearisation, O(T) each, go on to ``steps``),
    solved ``replicas`` times with independent paths for the Monte-Carlo error of V(t).""",
    *_ESCAPE,
    ("dmft_steps", "replicas"),
    without=_FIXED_BY_RESTRICTED,
    supported={**RESTRICTED_GD, "m": (1,)},
)

EscapeSignalSettings = compose(
    "EscapeSignalSettings",
    """The DMFT with signal against planted-overlap GD (docs/escape.md) for a theory model: ``trials``
    planted runs at dimension d and the DMFT with ``n_paths`` paths, both over ``steps`` steps.""",
    *_ESCAPE,
    without=_FIXED_BY_RESTRICTED,
    supported={**RESTRICTED_GD, "m": (1,)},
)

PredictionSettings = compose(
    "PredictionSettings",
    """The predicted success probability of a theory model (``theory.prediction``): the restricted
    DMFT with ``n_paths`` paths over ``horizon`` steps, ``samples`` paths of the hard-coordinate
    process, the critical overlaps ``rho_c`` and the dimensions ``d`` it is evaluated at.""",
    MODEL,
    ("horizon", "n_paths", "samples", "rho_c", "d"),
    without=_FIXED_BY_THEORY,
    supported=THEORY,
)

TwoStageSettings = compose(
    "TwoStageSettings",
    """The two-stage prediction of a theory model (``theory.two_stage``): kicks ``m0`` of the DMFT
    with signal (``n_paths`` paths, ``horizon`` steps) at each matching time ``t0``, ``samples``
    draws of the hard coordinate at t₀, the dimensions ``d``, and the sweeps' escape and success
    levels.""",
    MODEL,
    ("horizon", "n_paths", "samples", "t0", "m0", "d", "escape_rho", "success_rho"),
    without=_FIXED_BY_THEORY,
    supported=THEORY,
)

SpectralSettings = compose(
    "SpectralSettings",
    """The simulated overlap of the optimal spectral estimator at one d.""",
    ("seed", "link", "noise", "delta", "trials"),
)


def _merged(config, activation, section_path, section):
    """(values, origin) of every convention: defaults < learning_rate/steps of the activation <
    section."""
    values, origin = {}, {}
    for key in CONVENTIONS:
        defaults = config["defaults"]
        optional = key in OPTIONAL_CONVENTIONS
        values[key] = defaults.get(key, OPTIONAL_CONVENTIONS[key]) if optional else defaults[key]
        origin[key] = f"defaults.{key}"
    for key, table in (("lr", "learning_rate"), ("steps", "steps")):
        if activation in config[table]:
            values[key], origin[key] = config[table][activation], f"{table}.{activation}"
    for key, value in section.items():
        values[key], origin[key] = value, f"{section_path}.{key}"
    values["activation"] = activation
    return values, origin


def _build(cls, config, section_path, section, experiment, activation=None, fixed=None, activation_key=None):
    """``cls`` for one section of the config: the merged conventions, the base seed, the
    experiment name (part of every trial's identity) and ``fixed`` values ({field: (value, config
    key it comes from, or None for a value the code fixes)})."""
    activation = activation or section["activation"]
    values, origin = _merged(config, activation, section_path, section)
    values.update(seed=config["seed"], experiment=experiment)
    activation_key = activation_key or origin.get("activation", f"{section_path}.activation")
    origin.update(seed="seed", activation=activation_key)
    for name, (value, key) in (fixed or {}).items():
        values[name] = value
        if key:
            origin[name] = key
        else:
            origin.pop(name, None)
    names = cls.field_names()
    missing = [k for k in names if k not in values]
    if missing:
        raise KeyError(f"{section_path}: no value for {', '.join(missing)}")
    return cls(
        **{k: frozen(values[k]) for k in names},
        origin={k: origin[k] for k in [*names, *cls.SUPPORTED] if k in origin},
        checked={k: frozen(values[k]) for k in cls.SUPPORTED},
    )


def sweep_conventions(config, name):
    """Every merged convention of sweep ``name`` (read by its jobs or not)."""
    spec = config["sweeps"][name]
    return _merged(config, spec.get("activation"), f"sweeps.{name}", spec)[0]


def theory_conventions(config, model):
    """Every merged convention of theory model ``model`` (read by its jobs or not)."""
    spec = _theory_spec(config, model)
    return _merged(config, spec["activation"], f"theory.models.{model}", spec)[0]


def _keys(section, path, names):
    """``fixed`` entries for ``names`` taken from ``section`` (a dict at config key ``path``)."""
    return {k: (frozen(section[k]), f"{path}.{k}") for k in names}


EARLY_STOP_FIELDS = {
    "certify_check_grad": "check_grad",
    "certify_every": "check_every",
    "certify_safety": "safety",
    "certify_rho_tol": "rho_tol",
    "certify_grad_floor": "grad_floor",
}
"""The certificate's settings field ← its key under ``early_stop``."""


def early_stop_fields(config):
    """(value, origin) of each certificate field from the config's ``early_stop`` section."""
    stop = config["early_stop"]
    return {field: (stop[key], f"early_stop.{key}") for field, key in EARLY_STOP_FIELDS.items()}


def sweep_blocks(config, name):
    """[(first trial, trials)] of the blocks of every cell of sweep ``name``: ``trial_block`` trials
    each, the last one the remainder."""
    size, total = config["trial_block"], config["sweeps"][name]["trials"]
    return [(first, min(size, total - first)) for first in range(0, total, size)]


def sweep_deltas(config, name, d):
    """The δ grid of sweep ``name`` at dimension ``d``: its ``delta_at`` entry for d, else ``delta``."""
    spec = config["sweeps"][name]
    return spec.get("delta_at", {}).get(d, spec["delta"])


def sweep_budget(config, name, d):
    """(steps, origin) of sweep ``name``'s trials at dimension ``d``: the sweep's step budget, grown
    in proportion to d above ``budget_scale_d`` (steps·d/budget_scale_d, rounded up), since escapes
    come later at larger d (the hard component starts at O(1/√d)); None where d does not exceed it
    (the budget is the sweep's own, as at every d of the quick run)."""
    reference = config["budget_scale_d"]
    if reference is None or d <= reference:
        return None
    values, origin = _merged(
        config, config["sweeps"][name].get("activation"), f"sweeps.{name}", config["sweeps"][name]
    )
    return resources.scaled_steps(values["steps"], d, reference), (origin["steps"], "budget_scale_d")


def sweep_settings(config, name, block=None, d=None):
    """The settings of block ``block`` of every cell of sweep ``name`` at dimension ``d`` (its d and δ
    lists and figure left out), or of the whole cell (all trials) without ``block``.  A full block's
    trials come from ``trial_block`` alone, so raising ``trials`` changes the params of the last,
    partial block only.  The step budget depends on d above ``budget_scale_d`` (:func:`sweep_budget`)."""
    grid = ("d", "delta", "delta_at", "figure", "paper", "design")
    spec = {k: v for k, v in config["sweeps"][name].items() if k not in grid}
    fixed = {**early_stop_fields(config), "first_trial": (0, None)}
    if block is not None:
        blocks = sweep_blocks(config, name)
        first, trials = blocks[block]
        last = block == len(blocks) - 1  # its trials are the remainder: they read the sweep's trials
        fixed["first_trial"] = (first, "trial_block" if block else None)
        fixed["trials"] = (trials, (f"sweeps.{name}.trials", "trial_block") if last else "trial_block")
    budget = sweep_budget(config, name, d) if d is not None else None
    if budget is not None:
        fixed["steps"] = budget
    fixed.update(unread_certificate_fields(config, f"sweeps.{name}", spec))
    return _build(SweepSettings, config, f"sweeps.{name}", spec, name, fixed=fixed)


def unread_certificate_fields(config, section_path, section):
    """``fixed`` entries that blank the certificate field a sweep's trials cannot read:
    ``certify_safety`` with a loss other than the square loss (the floor rule (M14) alone), so that
    editing it reruns no such sweep."""
    values = _merged(config, section.get("activation"), section_path, section)[0]
    if chosen_loss(values["loss"], values["huber"]) != "square":
        return {"certify_safety": (None, None)}
    return {}


def _long_run(cls, config, name):
    return _build(cls, config, f"grokking.{name}", config["grokking"][name], name)


def dataset_settings(config, name):
    """The stored dataset of long run ``name``."""
    return _long_run(DatasetSettings, config, name)


def long_run_settings(config, name):
    """Long run ``name`` on its stored dataset."""
    return _long_run(LongRunSettings, config, name)


def plateau_settings(config, activation):
    """Hessian plateau cells of ``activation``: float64 (eigenvalues near 0)."""
    spec = {k: config["hessian"][k] for k in ("d", "seeds", "grad_tol", "checkpoints", "k")}
    fixed = {"dtype": ("float64", None)}
    return _build(PlateauSettings, config, "hessian", spec, "hessian", activation=activation, fixed=fixed)


def spectral_threshold_settings(config, activation, d):
    """Plateau cells of the spectral-threshold scan (docs/finite_size.md, (F14)) of ``activation`` at
    dimension ``d``: the Hessian cells' grad_tol, checkpoints and k, the scan's seeds; float64."""
    spec = {k: config["hessian"][k] for k in ("grad_tol", "checkpoints", "k")}
    scan = config["spectral_threshold"]
    fixed = {
        "dtype": ("float64", None),
        "d": (d, None),  # a cell coordinate: editing the list adds or drops cells, as for a sweep's d
        "seeds": (scan["seeds"], "spectral_threshold.seeds"),
    }
    return _build(
        PlateauSettings,
        config,
        "hessian",
        spec,
        "spectral_threshold",
        activation=activation,
        fixed=fixed,
    )


landscape_settings = plateau_settings
"""Fig 3 runs restricted GD to the plateau with the Hessian cells' settings of its activation."""


def _theory_spec(config, model):
    return {k: v for k, v in config["theory"]["models"][model].items() if k not in ("delta", "n_paths")}


def _theory(cls, config, model, experiment, fixed=None):
    """``cls`` for theory model ``model``: its conventions over ``defaults``."""
    return _build(cls, config, f"theory.models.{model}", _theory_spec(config, model), experiment, fixed=fixed)


def theory_model_settings(config, model):
    """A theory model's DMFT (its δ grid and N are passed separately, so the settings name the model only)."""
    return _theory(TheoryModelSettings, config, model, f"theory_{model}")


def fixed_point_settings(config, model):
    """A theory model's static fixed point."""
    return _theory(FixedPointSettings, config, model, f"theory_{model}")


def referee_settings(config, model):
    """The referee of ``model``: its data identity is the model's, in float64, for ``horizon`` steps."""
    sim = config["theory"]["simulation"]
    fixed = {"dtype": ("float64", None), "steps": (config["theory"]["horizon"], "theory.horizon")}
    fixed |= _keys(sim, "theory.simulation", ("d", "seeds", "spectrum_steps", "k"))
    return _theory(RefereeSettings, config, model, f"theory_{model}", fixed)


def escape_settings(config, model, kind):
    """The escape cells of ``model`` (``kind``: "linear" or "signal"): its conventions, in float64,
    for ``escape.horizon`` steps."""
    spec = config["escape"]
    fixed = {"dtype": ("float64", None), "steps": (spec["horizon"], "escape.horizon")}
    fixed |= _keys(spec, "escape", ("d", "trials", "n_paths"))
    if kind == "linear":
        key = (
            "escape.dmft_horizon"
            if spec.get("dmft_horizon", spec["horizon"]) < spec["horizon"]
            else "escape.horizon"
        )
        fixed["dmft_steps"] = (min(spec["horizon"], spec.get("dmft_horizon", spec["horizon"])), key)
        fixed["replicas"] = (config["theory"]["replicas"], "theory.replicas")
    cls = EscapeLinearSettings if kind == "linear" else EscapeSignalSettings
    return _theory(cls, config, model, f"escape_{model}", fixed)


def prediction_settings(config, model):
    """The prediction cells of ``model``: its conventions, and ``escape.prediction``'s numerics."""
    spec = config["escape"]["prediction"]
    fixed = _keys(spec, "escape.prediction", ("horizon", "n_paths", "samples", "rho_c", "d"))
    return _theory(PredictionSettings, config, model, f"prediction_{model}", fixed)


def two_stage_settings(config, model):
    """The two-stage cells of ``model``: its conventions and escape/success levels, the dimensions
    of ``escape.prediction``, and ``escape.two_stage``'s numerics."""
    fixed = _keys(
        config["escape"]["two_stage"], "escape.two_stage", ("horizon", "n_paths", "samples", "t0", "m0")
    )
    fixed["d"] = (frozen(config["escape"]["prediction"]["d"]), "escape.prediction.d")
    return _theory(TwoStageSettings, config, model, f"two_stage_{model}", fixed)


def design_settings(config, name):
    """Design ``name`` (``design.designs``): its conventions over ``defaults`` on the designer's
    target link, as a theory model (fixed point and DMFT)."""
    spec = config["design"]["designs"][name]
    fixed = {"link": (config["design"]["link"], "design.link")}
    return _build(DesignSettings, config, f"design.designs.{name}", spec, f"design_{name}", fixed=fixed)


def design_family_settings(config):
    """The designer's activation family (``design.family``) on its target link."""
    spec = {k: v for k, v in config["design"]["family"].items() if k in ("a", "b")}
    fixed = {"link": (config["design"]["link"], "design.link")}
    return _build(DesignFamilySettings, config, "design.family", spec, "design_family", "family", fixed)


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


def _convention(cls, config, name, activation, steps=None, steps_key=None, activation_key=None):
    """``cls`` for convention ``name`` and ``activation``: its keys over ``defaults``, η and budget
    scaled from ``learning_rate``/``steps`` (or ``steps`` given, from config key ``steps_key``).
    Every convention shares the experiment "conventions", so all of them see the same data and
    initialisations at a given (activation, d, δ, trial): the comparisons are paired."""
    keys, grid = convention_keys(config, name), config["conventions"]["grid"][name]
    path = f"conventions.grid.{name}"
    spec = {k: keys[k] for k in ("link", "loss_normalisation", "a", "b", "r0") if k in grid}
    lr = config["learning_rate"][activation] * keys["lr_factor"]
    fixed = {"lr": (lr, (f"learning_rate.{activation}", f"{path}.lr_factor"))}
    if steps is None:
        steps = int(round(config["steps"][activation] * keys["steps_factor"]))
        steps_key = (f"steps.{activation}", f"{path}.steps_factor")
    fixed["steps"] = (steps, steps_key)
    fixed["trials"] = (config["conventions"]["trials"], "conventions.trials")
    fixed["first_trial"] = (0, None)
    fixed.update(early_stop_fields(config))
    if "certify_check_grad" in cls.field_names():
        fixed.update(unread_certificate_fields(config, path, {**spec, "activation": activation}))
    return _build(cls, config, path, spec, "conventions", activation, fixed, activation_key)


def convention_settings(config, name, activation):
    """A scan of convention ``name`` for ``activation``, ``conventions.trials`` trials per δ."""
    return _convention(SweepSettings, config, name, activation)


def convention_plateau_settings(config, name):
    """The Fig 2 plateau run of convention ``name`` (``conventions.plateau``)."""
    p = config["conventions"]["plateau"]
    keys = ("conventions.plateau.steps", "conventions.plateau.activation")
    return _convention(ConventionPlateauSettings, config, name, p["activation"], p["steps"], *keys)


def spectral_settings(config):
    spec = config["spectral"]
    return SpectralSettings(
        seed=config["seed"],
        link=spec["link"],
        noise=spec["noise"],
        delta=frozen(spec["delta"]),
        trials=spec["trials"],
        origin={"seed": "seed", **{k: f"spectral.{k}" for k in ("link", "noise", "delta", "trials")}},
    )
