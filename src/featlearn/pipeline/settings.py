"""The rules and sources that fill a job's settings from the config, and the shared vocabulary of
its kinds' fields.

A kind of job (``pipeline.jobs.Kind``) declares its settings class, the fields its code reads (from
the groups below: ``MODEL``, ``DATA``, ...), and where each comes from.  The record itself, and all a
job script needs of it, is ``featlearn.io.settings``: this module stays in the master.

:func:`build` fills one class from the config for one job (its kind names the sources): each field is
looked up in config keys in precedence order by one function (:func:`lookup`), which also gives the
key the value came from (its ``origin``).  A field without a source is a *convention* of the kind's
section: the section's own key, then the activation's ``learning_rate`` / ``steps`` entry (for
``lr`` and ``steps``), then ``defaults`` (:func:`convention`).  Every kind of job declares the values
it implements (``SUPPORTED``: :data:`PLAIN_MODEL`, :data:`RESTRICTED_GD`, ...), checked on the merged
config values, so that an option a kind of job does not support fails in the config check naming its
key instead of being ignored.
"""

import math

from featlearn.io.settings import frozen
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


class MissingKeys(KeyError):
    """None of ``keys`` (dotted config keys, in the order they are looked up) is in the config."""

    def __init__(self, keys):
        super().__init__(f"none of {', '.join(keys)} is in the config")
        self.keys = tuple(keys)


def lookup(config, *keys):
    """(value, key) of the first of the dotted config ``keys`` that ``config`` holds (an integer key,
    such as a d of ``delta_at``, written as its digits); :class:`MissingKeys` naming them all where
    none is."""
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
    raise MissingKeys(keys)


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

# --- the groups of fields the kinds' settings are made of ------------------------------------------

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

PLATEAU = ("steps", "d", "seeds", "k", "grad_tol")
"""Restricted GD to the plateau: the budget, d, the seeds per cell, the spectrum's k and the stop."""

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
