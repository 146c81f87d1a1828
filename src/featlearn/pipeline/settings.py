"""Typed settings, one frozen dataclass per kind of job, holding exactly what that job reads, and the
rules and sources that fill them from the config.

The numerics take these objects whole (attribute access; nothing is looked up in an untyped
dict), the rules pass them as ``asdict()`` (a dict in field order, which Snakemake compares to
decide reruns) and each job writes the same dict into its provenance record.  Because Snakemake
reruns a job when its ``params`` change, a settings class carries only the fields its job's code
reads: a field that is not read would rerun the job for an edit that cannot change its result (the
workflow test checks with a tracked run that every field is read, ``FEATLEARN_SETTINGS_READS``).

:func:`build` fills one class from the config for one job (its kind, ``pipeline.jobs.Kind``, names
the sources): each field is looked up in config keys in precedence order by one function
(:func:`lookup`), which also gives the key the value came from (its ``origin``).  A field without a
source is a *convention* of the kind's section: the section's own key, then the activation's
``learning_rate`` / ``steps`` entry (for ``lr`` and ``steps``), then ``defaults``
(:func:`convention`).  Every kind of job declares the values it implements (``SUPPORTED``),
checked on the merged config values, so that an option a kind of job does not support fails in
the config check naming its key instead of being ignored.
"""

import atexit
import dataclasses
import functools
import json
import math
import os
from dataclasses import dataclass, field

from featlearn.model.layers import trains_second_layer
from featlearn.model.loss_choice import chosen_loss

CONVENTIONS = tuple(
    "link m a b r0 init theta_star noise n_test dtype loss_normalisation freeze_rho escape_rho"
    " success_rho record_points train huber loss".split()
)
"""The model/data/training conventions of ``defaults`` (docs/model.md)."""

OPTIONAL_CONVENTIONS = {"train": ("theta",), "huber": None, "loss": None}
"""Conventions ``defaults`` may leave out, with their value then."""

ACTIVATION_TABLES = {"lr": "learning_rate", "steps": "steps"}
"""Fields with a per-activation table between a section's key and ``defaults``."""

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


def convention(config, name, context):
    """(value, key) of convention ``name`` of the section ``context["section"]``: the section's key,
    then ``learning_rate`` / ``steps`` of ``context["activation"]`` (for lr and steps), then
    ``defaults``; an optional convention nobody sets has its value in ``OPTIONAL_CONVENTIONS``."""
    keys = [f"{context['section']}.{name}"] if context.get("section") else []
    if name in ACTIVATION_TABLES:
        keys.append(f"{ACTIVATION_TABLES[name]}.{context['activation']}")
    if name in CONVENTIONS:
        keys.append(f"defaults.{name}")
    try:
        return lookup(config, *keys)
    except KeyError:
        if name not in OPTIONAL_CONVENTIONS:
            raise
        return OPTIONAL_CONVENTIONS[name], f"defaults.{name}"


def fixed(value):
    """A source of a value the code fixes (a string: a pattern over the context): from no config key."""
    return lambda config, context: (value.format(**context) if isinstance(value, str) else value, None)


def resolve(config, name, source, context):
    """(value, origin) of field ``name`` from ``source``: a config key pattern over ``context`` or a
    tuple of them in precedence order (:func:`lookup`), a function ``(config, context) -> (value,
    origin)`` (such as a :func:`fixed` value), or None (a :func:`convention`)."""
    if source is None:
        return convention(config, name, context)
    if callable(source):
        return source(config, context)
    keys = (source,) if isinstance(source, str) else source
    return lookup(config, *(key.format(**context) for key in keys))


def origin_keys(origins):
    """The config keys of ``origins`` (each an origin of :func:`resolve`: a key, a tuple of keys or
    None), as a set."""
    return {key for o in origins if o for key in ((o,) if isinstance(o, str) else o)}


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


def settings_class(name, doc, *parts, without=(), supported=None):
    """A settings class whose fields are the names of ``parts`` in order, less ``without``."""
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


def build(cls, config, wildcards, *, conventions_from=None, experiment="", sources=None):
    """The settings of class ``cls`` of the job at ``wildcards`` (strings, as Snakemake gives them).

    Each field comes from its entry of ``sources`` (:func:`resolve`); a field without one is a
    :func:`convention` of the section ``conventions_from`` (a pattern over the wildcards, whose keys
    override ``defaults``); ``seed`` and the experiment name (part of every trial's identity) are
    common to all.  Fields are filled in class order, and a source sees the wildcards and the fields
    before it (a convention's η needs ``activation``; the certificate's safety factor, ``loss`` and
    ``huber``)."""
    sources = {"seed": "seed", "experiment": fixed(experiment), **(sources or {})}
    context = {**wildcards, "section": conventions_from and conventions_from.format(**wildcards)}
    names = cls.field_names()
    values, origin = {}, {}
    for name in [*names, *(k for k in cls.SUPPORTED if k not in names)]:
        value, key = resolve(config, name, sources.get(name), {**context, **values})
        values[name] = frozen(value)
        if key:
            origin[name] = key
    return cls(**{k: values[k] for k in names}, origin=origin, checked={k: values[k] for k in cls.SUPPORTED})


def conventions(config, section):
    """Every convention of config section ``section`` (its activation, η and the ``CONVENTIONS``),
    merged over ``defaults`` whether its jobs read them or not."""
    context = {"section": section, "activation": lookup(config, f"{section}.activation")[0]}
    return {name: convention(config, name, context)[0] for name in ("activation", "lr", *CONVENTIONS)}


# --- what each kind of job implements ---------------------------------------------------------------


def _supports(what, test):
    """A rule of ``SUPPORTED``: ``test(value)``, with ``what`` (what the job implements) in its error."""
    test.__doc__ = what
    return test


_scalar = _supports("a scalar (one neuron)", lambda value: not isinstance(value, tuple))
_noiseless = _supports(
    "noise 0: the static fixed point solves the noiseless problem", lambda value: value == 0
)
_ELSEWHERE = "implemented in the GD sweeps and the designs"
PLAIN_MODEL = {
    "train": _supports(
        f"train: [theta]: a trained second layer is {_ELSEWHERE}", lambda v: not trains_second_layer(v)
    ),
    "huber": _supports(f"huber: null (the square loss): Huber's loss is {_ELSEWHERE}", lambda v: v is None),
    "loss": _supports(f"loss: square: other losses are {_ELSEWHERE}", lambda v: v in (None, "square")),
}
"""Jobs that implement neither a trained second layer nor a loss other than the square loss."""

RESTRICTED_GD = {"init": ("random",), "loss_normalisation": ("none",), **PLAIN_MODEL}
"""Restricted GD (hard component projected out) starts from a random init and descends the plain
½-MSE: its Hessian is that of R̂, not of R̂/Var y; its Hessian and the theory are those of Θ alone
(a and b fixed) and of the square loss."""

THEORY = {**RESTRICTED_GD, "m": (1,), "a": _scalar, "b": _scalar}
"""The DMFT describes restricted GD of one neuron from a random init on the plain ½-MSE; its law
does not depend on the teacher frame (rotation invariance) nor on the dtype of X (there is no X)."""

ONE_NEURON_GD = {**RESTRICTED_GD, "m": (1,)}
"""Restricted GD of one neuron, compared with the theory of its model."""

FIXED_POINT = {**THEORY, "noise": _noiseless}
"""The static fixed point solves the noiseless problem."""

# --- the settings classes ---------------------------------------------------------------------------

MODEL = tuple("seed experiment activation lr link m a b r0 init noise loss_normalisation".split())
"""What defines the model and its training: the identity (seed, experiment) of its random draws,
σ, η, the link, the network's width, a and b (at the start, where trained), the init and the loss
normalisation."""
DATA = ("theta_star", "n_test", "dtype")
"""The data of a GD run: the teacher frame, the test-set size and the dtype of X."""
RECORDING = ("freeze_rho", "escape_rho", "success_rho", "record_points")
"""What a GD trial records: its freeze, escape and success levels and its recording grid size."""
THEORY_FIXES = ("m", "init", "loss_normalisation")
"""Conventions a theory job never reads: ``THEORY`` admits a single value of each."""


def certify_safety(config, x):
    """The certificate's safety factor, blank with a loss other than the square loss (the floor rule
    (M14) alone), so that editing it reruns no such sweep."""
    if chosen_loss(x["loss"], x["huber"]) != "square":
        return None, None
    return lookup(config, "early_stop.safety")


CERTIFY = {
    "certify_check_grad": "early_stop.check_grad",
    "certify_every": "early_stop.check_every",
    "certify_safety": certify_safety,
    "certify_rho_tol": "early_stop.rho_tol",
    "certify_grad_floor": "early_stop.grad_floor",
}
"""The sweep's certificate of a local minimum (docs/model.md, eqs. (M13), (M14)), from ``early_stop``."""

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

DatasetSettings = settings_class(
    "DatasetSettings",
    """The stored dataset and initial network of a long run at (d, δ): its draws and conventions.""",
    MODEL,
    DATA,
    ("d", "delta"),
    without=("lr", "loss_normalisation"),
    supported=PLAIN_MODEL,
)

LongRunSettings = settings_class(
    "LongRunSettings",
    """One long GD run (Fig 2) on its stored dataset (which fixes d, δ, the draws, θ⁰, a and b):
    η, the loss, the budget and the recording; never frozen.""",
    ("activation", "lr", "link", "noise", "loss_normalisation", "steps", "escape_rho", "record_points"),
    supported=PLAIN_MODEL,
)

ConventionPlateauSettings = settings_class(
    "ConventionPlateauSettings",
    """One never-frozen GD run of a convention at the plateau's (d, δ) (its population risk).""",
    MODEL,
    DATA,
    ("steps", "escape_rho", "record_points"),
    supported=PLAIN_MODEL,
)

PLATEAU = ("steps", "d", "seeds", "k", "grad_tol")
"""Restricted GD to the plateau: the budget, d, the seeds per cell, the spectrum's k and the stop."""

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

ThresholdScanSettings = settings_class(
    "ThresholdScanSettings",
    """A cell of the spectral-threshold scan: the plateau of :data:`PlateauSettings`, with the
    spectrum (k smallest eigenvalues) of its final state alone.""",
    MODEL,
    DATA,
    PLATEAU,
    without=("loss_normalisation",),
    supported=RESTRICTED_GD,
)

RefereeSettings = settings_class(
    "RefereeSettings",
    """The referee of a theory model: restricted GD over the DMFT horizon (``steps``), ``seeds`` runs,
    spectra (k smallest eigenvalues) at ``spectrum_steps``.""",
    MODEL,
    DATA,
    ("steps", "d", "seeds", "k", "spectrum_steps"),
    without=("loss_normalisation",),
    supported=ONE_NEURON_GD,
)

TheoryModelSettings = settings_class(
    "TheoryModelSettings",
    """A theory model's DMFT (one neuron, one single-index link): its draws, σ, η, the link, a, b,
    r₀ and the noise.""",
    MODEL,
    without=THEORY_FIXES,
    supported=THEORY,
)

FixedPointSettings = settings_class(
    "FixedPointSettings",
    """A theory model's static fixed point: σ, the link, a and b (no GD time, no draws).""",
    ("activation", "link", "a", "b"),
    supported=FIXED_POINT,
)

DesignSettings = settings_class(
    "DesignSettings",
    """A design of the designer (``theory.design``): a theory model of one neuron (its draws, σ, η,
    the link, a, b, r₀, the loss: ``loss``, or Huber's with threshold ``huber``, or the square
    loss, and the trained layers ``train``) whose static fixed point needs a noiseless target.""",
    MODEL,
    ("huber", "loss", "train"),
    without=THEORY_FIXES,
    supported={k: v for k, v in FIXED_POINT.items() if k not in PLAIN_MODEL},
)

DesignFamilySettings = settings_class(
    "DesignFamilySettings",
    """The activation family of the designer (``theory.design_family``): the target link and the
    neuron's a and b (σ_α, its bounds and the numerics are the job's extra params).""",
    ("link", "a", "b"),
    supported=FIXED_POINT,
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

EscapeLinearSettings = settings_class(
    "EscapeLinearSettings",
    """The linear stage of the escape (docs/escape.md) for a theory model: ``trials`` unrestricted GD
    runs at dimension d over ``steps`` steps with their exact linearisation, and the hard-coordinate
    process from the DMFT with ``n_paths`` paths over its first ``dmft_steps`` steps (the DMFT's
    O(N T²) memory caps its horizon; the runs and their linearisation, O(T) each, go on to ``steps``),
    solved ``replicas`` times with independent paths for the Monte-Carlo error of V(t).""",
    EscapeSignalSettings.field_names(),
    ("dmft_steps", "replicas"),
    supported=ONE_NEURON_GD,
)

PredictionSettings = settings_class(
    "PredictionSettings",
    """The predicted success probability of a theory model (``theory.prediction``): the restricted
    DMFT with ``n_paths`` paths over ``horizon`` steps, ``samples`` paths of the hard-coordinate
    process, the critical overlaps ``rho_c`` and the dimensions ``d`` it is evaluated at.""",
    MODEL,
    ("horizon", "n_paths", "samples", "rho_c", "d"),
    without=THEORY_FIXES,
    supported=THEORY,
)

TwoStageSettings = settings_class(
    "TwoStageSettings",
    """The two-stage prediction of a theory model (``theory.two_stage``): kicks ``m0`` of the DMFT
    with signal (``n_paths`` paths, ``horizon`` steps) at each matching time ``t0``, ``samples``
    draws of the hard coordinate at t₀, the dimensions ``d``, and the sweeps' escape and success
    levels.""",
    MODEL,
    ("horizon", "n_paths", "samples", "t0", "m0", "d", "escape_rho", "success_rho"),
    without=THEORY_FIXES,
    supported=THEORY,
)

SpectralSettings = settings_class(
    "SpectralSettings",
    """The simulated overlap of the optimal spectral estimator at one d.""",
    ("seed", "link", "noise", "delta", "trials"),
)

# --- sources of fields that are not one config key ----------------------------------------------


def sweep_blocks(config, name):
    """[(first trial, trials)] of the blocks of every cell of sweep ``name``: ``trial_block`` trials
    each, the last one the remainder."""
    size, total = config["trial_block"], config["sweeps"][name]["trials"]
    return [(first, min(size, total - first)) for first in range(0, total, size)]


def sweep_deltas(config, name, d):
    """The δ grid of sweep ``name`` at dimension ``d``: its ``delta_at`` entry for d, else ``delta``."""
    spec = config["sweeps"][name]
    return spec.get("delta_at", {}).get(d, spec["delta"])


def first_trial_of(config, x):
    """A block's first trial: a full block's comes from ``trial_block`` alone (the whole cell: 0)."""
    block = int(x.get("block", 0))
    return sweep_blocks(config, x["sweep"])[block][0], "trial_block" if block else None


def block_trials(config, x):
    """A block's trials: ``trial_block``, the last block the remainder of the sweep's ``trials``
    (so raising ``trials`` changes the params of the last, partial block only); the whole cell's
    without a block."""
    if "block" not in x:
        return lookup(config, f"{x['section']}.trials")
    blocks, block = sweep_blocks(config, x["sweep"]), int(x["block"])
    last = block == len(blocks) - 1
    return blocks[block][1], (f"{x['section']}.trials", "trial_block") if last else "trial_block"


def scaled_steps(steps, d, budget_scale_d):
    """A sweep trial's step budget at dimension d: ``steps``, grown in proportion to d above
    ``budget_scale_d`` (steps·d/budget_scale_d rounded up; None: never grown)."""
    if budget_scale_d is None or d <= budget_scale_d:
        return steps
    return math.ceil(steps * d / budget_scale_d)


def budget_steps(config, x):
    """A sweep's step budget at dimension d, grown in proportion to d above ``budget_scale_d``
    (steps·d/budget_scale_d, rounded up), since escapes come later at larger d (the hard component
    starts at O(1/√d)); the sweep's own at and below it, as at every d of the quick run."""
    (steps, key), reference = convention(config, "steps", x), config["budget_scale_d"]
    if "d" in x and reference is not None and int(x["d"]) > reference:
        return scaled_steps(steps, int(x["d"]), reference), (key, "budget_scale_d")
    return steps, key


def dmft_steps(config, x):
    """The escape DMFT's horizon: ``escape.dmft_horizon`` where shorter than ``escape.horizon``."""
    horizon = config["escape"]["horizon"]
    dmft = config["escape"].get("dmft_horizon", horizon)
    return min(horizon, dmft), "escape.dmft_horizon" if dmft < horizon else "escape.horizon"


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


def scaled(name):
    """A convention's η or step budget: the activation's ``learning_rate`` / ``steps`` times its
    ``lr_factor`` / ``steps_factor`` (default 1)."""
    table, factor = ACTIVATION_TABLES[name], f"{name}_factor"

    def source(config, x):
        value = config[table][x["activation"]] * convention_keys(config, x["convention"])[factor]
        return value if name == "lr" else int(round(value)), (
            f"{table}.{x['activation']}",
            f"{x['section']}.{factor}",
        )

    return source


FLOAT64 = {"dtype": fixed("float64")}
"""Restricted GD and the referees run in float64 (eigenvalues near 0)."""
