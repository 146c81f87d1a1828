"""Every check the JSON schema cannot express, run on the whole config before any job.

Each failure is one :class:`ConfigError` naming the offending key, e.g.
``config error at 'width.groups.gelu.1': 'gelu_m3' is not a sweep``.
"""

import math

from featlearn.model import catalogue
from featlearn.model.layers import trains_second_layer
from featlearn.model.links import get_link
from featlearn.pipeline import jobs, kernels, manifest, settings


class ConfigError(ValueError):
    def __init__(self, key, message):
        super().__init__(f"config error at '{key}': {message}")
        self.key = key


COMPOSITE = {"allOf", "anyOf", "oneOf", "unevaluatedProperties", "unevaluatedItems", "$ref"}
"""Schema keywords whose errors only say that a nested rule failed."""


def _flattened(errors):
    for error in errors:
        yield error
        yield from _flattened(error.context or ())


def schema_error(config, schema):
    """The most specific violation of the JSON ``schema`` by ``config`` as a :class:`ConfigError`
    (None if it is valid): the deepest key, a broken bound or type before a composite keyword's
    summary, so that ``defaults.success_rho: 1.5`` reads "1.5 is greater than the maximum of 1"
    instead of "Unevaluated properties are not allowed" and a list of every key."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    errors = list(_flattened(validator.iter_errors(config)))
    if not errors:
        return None

    def rank(error):
        return (-len(error.absolute_path), error.validator in COMPOSITE, list(map(str, error.absolute_path)))

    error = min(errors, key=rank)
    return ConfigError(".".join(str(p) for p in error.absolute_path) or "<top level>", error.message)


def _walk(value, path=()):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, (*path, str(k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, (*path, str(i)))
    else:
        yield ".".join(path), value


def finite_numbers(config):
    for key, value in _walk(config):
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(key, f"{value} is not a finite number")


def _config_entries(section, entries, built_in, kind, parse):
    """Each entry of the config section ``section`` ({name: expression}) has a name that is not a
    built-in's and an expression that ``parse`` accepts (its one-line ``ExpressionError`` otherwise)."""
    for name, text in entries.items():
        key = f"{section}.{name}"
        if name in built_in:
            raise ConfigError(key, f"{name!r} is a built-in {kind}: give the expression another name")
        try:
            parse(text)
        except catalogue.ExpressionError as error:
            raise ConfigError(key, str(error)) from None


def config_activations(config):
    """The config activations (``activations:``, expressions in z; ``catalogue.parse``)."""
    _config_entries(
        "activations", kernels.config_activations(config), catalogue.BUILT_IN, "activation", catalogue.parse
    )


def config_losses(config):
    """The config losses (``losses:``, expressions in e; ``catalogue.parse_loss``)."""
    _config_entries(
        "losses", kernels.config_losses(config), catalogue.BUILT_IN_LOSSES, "loss", catalogue.parse_loss
    )


def loss_references(config):
    """Every ``loss`` the config names is a built-in loss or a config loss."""
    known = {*catalogue.BUILT_IN_LOSSES, *kernels.config_losses(config)}
    for key, value in _walk(config):
        if key.rsplit(".", 1)[-1] == "loss" and value is not None and value not in known:
            built_in = ", ".join(catalogue.BUILT_IN_LOSSES)
            raise ConfigError(key, f"{value!r} is neither a built-in loss ({built_in}) nor in losses")


def loss_thresholds(config):
    """Huber's threshold goes with Huber's loss: a job whose ``loss`` is ``huber`` has a ``huber``
    threshold, and one with a threshold trains on Huber's loss."""
    for job in jobs.compute_jobs(config):
        s = job.settings
        if "loss" not in s.field_names():
            continue
        loss, threshold = s.loss, s.huber
        if loss == "huber" and threshold is None:
            raise ConfigError(s.origin.get("loss", job.section), "Huber's loss needs its threshold huber")
        if threshold is not None and loss not in (None, "huber"):
            raise ConfigError(
                s.origin.get("huber", job.section), f"huber is Huber's threshold, but the loss is {loss!r}"
            )


def _activation_uses(config):
    """(config key, activation name) of every place the config names an activation: the sections'
    ``activation`` and the keys of the per-activation tables."""
    sections = {
        "sweeps": config["sweeps"],
        "grokking": config["grokking"],
        "theory.models": config["theory"]["models"],
        "design.designs": config.get("design", {}).get("designs", {}),
    }
    for path, section in sections.items():
        for name, spec in section.items():
            yield f"{path}.{name}.activation", spec["activation"]
    yield "landscape.activation", config["landscape"]["activation"]
    if config.get("conventions"):
        yield "conventions.plateau.activation", config["conventions"]["plateau"]["activation"]
    tables = {
        "learning_rate": config["learning_rate"],
        "steps": config["steps"],
        "hessian.delta": config["hessian"]["delta"],
        "hessian.histogram": config["hessian"]["histogram"],
    }
    for path, table in tables.items():
        for name in table:
            yield f"{path}.{name}", name


def activation_references(config):
    """Every activation the config names is a built-in one or a config activation."""
    known = {*catalogue.BUILT_IN, *kernels.config_activations(config)}
    built_in = ", ".join(catalogue.BUILT_IN)
    for key, name in _activation_uses(config):
        if name not in known:
            raise ConfigError(
                key, f"{name!r} is neither a built-in activation ({built_in}) nor in activations"
            )


def _link_uses(config):
    """(config key, link) of every place the config names a link (a key ``link``)."""
    for key, value in _walk(config):
        if key.rsplit(".", 1)[-1] == "link" and isinstance(value, str):
            yield key, value


def link_expressions(config):
    """Every link the config names is a built-in link or an expression that
    ``link_expressions.parse`` accepts."""
    for key, name in _link_uses(config):
        try:
            get_link(name)
        except ValueError as error:
            raise ConfigError(key, str(error)) from None


def link_requirements(config):
    """What the jobs need of their links (checked after the supported options, so that a convention
    a job refuses is named first).  The theory models, the spectral method and the designer need a
    single index, the theory models and the designer a hard direction (their restricted GD projects
    it out); the spectral method (``spectral.link``, the designer's δ_alg, the sweeps started from
    the spectral estimator) also needs E[g² | y], which a link that is constant on an interval or
    jumps does not give.  A design with a trained second layer needs an even link: its outlier
    condition drops the hard direction's coupling to the layers, which vanishes because E[g | y] = 0
    (docs/dmft.md, "The outlier with a trained layer")."""
    models = config["theory"]["models"]
    single = [(f"theory.models.{model}.link", spec["link"]) for model, spec in models.items()]
    design = [("design.link", config["design"]["link"])] if config.get("design") else []
    spectral = [("spectral.link", config["spectral"]["link"]), *design]
    for name in config["sweeps"]:
        merged = settings.conventions(config, f"sweeps.{name}")
        if merged["init"] == "spectral":
            spectral.append((f"sweeps.{name}.link", merged["link"]))
    for key, name in single + spectral:
        if get_link(name).k != 1:
            raise ConfigError(key, f"{name!r} has k = {get_link(name).k}: one direction needed")
    for key, name in single + design:
        if not get_link(name).hard:
            raise ConfigError(key, f"{name!r} has no hard direction (its first Hermite coefficient is not 0)")
    if design and not get_link(config["design"]["link"]).even:
        for name in config["design"]["designs"]:
            merged = settings.DESIGN.build(config, design=name)
            if trains_second_layer(merged.train):
                raise ConfigError(
                    merged.config_key("train", f"design.designs.{name}.train"),
                    f"a trained second layer needs an even link (E[g | y] = 0); {design[0][1]!r} is not",
                )
    for key, name in spectral:
        try:
            pieces = get_link(name).preimages.pieces
        except ValueError as error:
            raise ConfigError(key, f"the spectral method needs E[g² | y]: {error}") from None
        if not pieces:
            raise ConfigError(key, f"{name!r} is constant: y carries no information")


def sweep_references(config):
    sweeps = config["sweeps"]
    refs = [(f"figure1.{k}", config["figure1"][k]) for k in ("random", "spectral")]
    refs.append(("easy_hard.sweep", config["easy_hard"]["sweep"]))
    refs += [(f"claims.sweeps.{role}", name) for role, name in config["claims"]["sweeps"].items()]
    refs += [
        (f"width.groups.{act}.{i}", name)
        for act, group in config["width"]["groups"].items()
        for i, name in enumerate(group)
    ]
    for key, name in refs:
        if name not in sweeps:
            raise ConfigError(key, f"{name!r} is not a sweep (sweeps: {', '.join(sweeps)})")
    link = sweeps[config["easy_hard"]["sweep"]].get("link", config["defaults"]["link"])
    if get_link(link).k != 2 or get_link(link).hard != (1,):
        raise ConfigError(
            "easy_hard.sweep", f"its link {link!r} is not g1 easy and g2 hard (k = 2, hard direction g2)"
        )
    for name, spec in sweeps.items():
        for d in spec.get("delta_at", {}):
            if d not in spec["d"]:
                raise ConfigError(f"sweeps.{name}.delta_at.{d}", f"{d} is not in sweeps.{name}.d")


def landscape_reference(config):
    """Fig 3 runs with the Hessian cells' settings of its activation."""
    if config["landscape"]["activation"] not in config["hessian"]["delta"]:
        raise ConfigError(
            "landscape.activation", "needs Hessian settings: add the activation to hessian.delta"
        )


def hessian_references(config):
    """The Hessian cells' link has a hard direction, and each histogram δ is one of its cells."""
    spec = config["hessian"]
    for act in spec["delta"]:
        link = settings.PLATEAU.build(config, activation=act).link
        if not get_link(link).hard:
            raise ConfigError("hessian", f"the link {link!r} has no hard direction to project out")
    for act, pair in spec["histogram"].items():
        for i, delta in enumerate(pair):
            if delta not in spec["delta"].get(act, []):
                raise ConfigError(f"hessian.histogram.{act}.{i}", f"{delta} is not in hessian.delta.{act}")


def theory_references(config):
    theory = config["theory"]
    horizon, models, sim = theory["horizon"], theory["models"], theory["simulation"]
    for key, steps in (
        ("report_steps", theory["report_steps"]),
        ("simulation.spectrum_steps", sim["spectrum_steps"]),
    ):
        if max(steps) > horizon:
            raise ConfigError(f"theory.{key}", f"step {max(steps)} is beyond the horizon {horizon}")
    for key, names in (
        ("simulation.delta", sim["delta"]),
        ("hessian_overlay", theory["hessian_overlay"].values()),
    ):
        for name in names:
            if name not in models:
                raise ConfigError(f"theory.{key}", f"{name!r} is not a theory model")
    for act in theory["hessian_overlay"]:
        if act not in config["hessian"]["delta"]:
            raise ConfigError(f"theory.hessian_overlay.{act}", f"{act!r} has no hessian.delta")
    for model, deltas in sim["delta"].items():
        for i, delta in enumerate(deltas):
            if delta not in models[model]["delta"]:
                raise ConfigError(
                    f"theory.simulation.delta.{model}.{i}",
                    f"{delta} is not on the δ grid of theory.models.{model} (the referee is compared "
                    "with the DMFT at the same δ)",
                )
    val = theory["validation"]
    if val["model"] not in sim["delta"]:
        raise ConfigError("theory.validation.model", f"{val['model']!r} has no simulation.delta")
    if val["step"] not in sim["spectrum_steps"]:
        raise ConfigError("theory.validation.step", f"{val['step']} is not a spectrum step")


def escape_references(config):
    spec = config["escape"]
    for key, cases in (("cases", spec["cases"]), ("signal.cases", spec["signal"]["cases"])):
        for model in cases:
            if model not in config["theory"]["models"]:
                raise ConfigError(f"escape.{key}.{model}", f"{model!r} is not a theory model")
    if max(spec["report_steps"]) > spec["horizon"]:
        raise ConfigError(
            "escape.report_steps", f"step {max(spec['report_steps'])} is beyond the horizon {spec['horizon']}"
        )
    prediction_references(config)


PREDICTED_CONVENTIONS = (
    "activation",
    "link",
    "lr",
    "a",
    "b",
    "r0",
    "noise",
    "m",
    "init",
    "loss_normalisation",
    "train",
    "huber",
    "loss",
)
"""What a predicted sweep must share with its theory model for the prediction to be about it."""


def prediction_references(config):
    """Each predicted model is a theory model, its sweep exists and trains the same model."""
    for model, spec in config["escape"]["prediction"]["models"].items():
        key = f"escape.prediction.models.{model}"
        if model not in config["theory"]["models"]:
            raise ConfigError(key, f"{model!r} is not a theory model")
        if spec["sweep"] not in config["sweeps"]:
            raise ConfigError(f"{key}.sweep", f"{spec['sweep']!r} is not a sweep")
        theory = settings.conventions(config, f"theory.models.{model}")
        sweep = settings.conventions(config, f"sweeps.{spec['sweep']}")
        for name in PREDICTED_CONVENTIONS:
            if settings.frozen(theory[name]) != settings.frozen(sweep[name]):
                raise ConfigError(
                    f"{key}.sweep",
                    f"sweep {spec['sweep']!r} has {name} = {sweep[name]!r}, model {model!r} has "
                    f"{theory[name]!r}: the prediction would be about another model",
                )


def finite_size_references(config):
    """Each finite-size model names a sweep, and if given a theory model and a paper value."""
    for model, spec in config["finite_size"]["models"].items():
        key = f"finite_size.models.{model}"
        for field, names in (
            ("sweep", config["sweeps"]),
            ("theory", config["theory"]["models"]),
            ("paper", config["claims"]["paper"]),
        ):
            if field in spec and spec[field] not in names:
                raise ConfigError(f"{key}.{field}", f"{spec[field]!r} is not in {', '.join(names)}")


def design_references(config):
    """A sweep's ``design`` names a design, and each design is named by one sweep at most; so does
    each entry of ``design.sweeps.include``; the family's parameter is no name an expression
    already uses, and its expression parses for every value of the parameter in its bounds (checked
    at both ends and the middle)."""
    design = config.get("design") or {}
    named = {}
    for sweep, spec in config["sweeps"].items():
        if "design" not in spec:
            continue
        key = f"sweeps.{sweep}.design"
        if spec["design"] not in design.get("designs", {}):
            raise ConfigError(key, f"{spec['design']!r} is not a design (design.designs)")
        if spec["design"] in named:
            raise ConfigError(
                key, f"{spec['design']!r} is already measured by sweep {named[spec['design']]!r}"
            )
        named[spec["design"]] = sweep
    if not design:
        return
    for name in design["sweeps"].get("include", ()):
        if name not in design["designs"]:
            raise ConfigError("design.sweeps.include", f"{name!r} is not a design (design.designs)")
    family = design.get("family")
    if not family:
        return
    if family["parameter"] in catalogue.NAMESPACE:
        raise ConfigError("design.family.parameter", f"{family['parameter']!r} is a name of the expressions")
    lo, hi = family["bounds"]
    if not lo < hi:
        raise ConfigError("design.family.bounds", f"[{lo}, {hi}] is not an interval")
    for value in (lo, (lo + hi) / 2, hi):
        try:
            catalogue.parse(catalogue.substitute(family["expression"], family["parameter"], value))
        except catalogue.ExpressionError as error:
            raise ConfigError(
                "design.family.expression", f"at {family['parameter']} = {value:g}: {error}"
            ) from None


def unique_stems(config):
    duplicates = manifest.duplicate_stems(config)
    if duplicates:
        raise ConfigError("sweeps", f"figure stem {duplicates[0]!r} names more than one figure")


def supported_options(config):
    """Every job's merged conventions are values its kind implements (``JobSettings.SUPPORTED``)."""
    for job in jobs.compute_jobs(config):
        for key, message in job.settings.unsupported():
            raise ConfigError(key, message)


def memory(config, limit_mb):
    """Every compute job's estimated memory (the registry's, as its rule requests) fits in ``limit_mb``
    (None: no limit known).  The error names the largest job that does not fit, with the config key
    it comes from, and how many others do not fit either."""
    if limit_mb is None:
        return
    over = sorted((j for j in jobs.compute_jobs(config) if j.mem_mb > limit_mb), key=lambda j: -j.mem_mb)
    if over:
        job = over[0]
        cell = ", ".join(f"{k}={v}" for k, v in job.wildcards.items())
        others = f" ({len(over) - 1} more jobs do not fit either)" if len(over) > 1 else ""
        raise ConfigError(
            job.section,
            f"{job.rule} ({cell}) needs ~{job.mem_mb} MB, more than the {limit_mb} MB available{others}",
        )


CHECKS = (
    finite_numbers,
    link_expressions,
    config_activations,
    activation_references,
    config_losses,
    loss_references,
    sweep_references,
    hessian_references,
    landscape_reference,
    theory_references,
    escape_references,
    finite_size_references,
    design_references,
    unique_stems,
    supported_options,
    loss_thresholds,
    link_requirements,
)


def check_config(config, mem_limit_mb=None):
    """Run every check; raise the first :class:`ConfigError`."""
    for check in CHECKS:
        check(config)
    memory(config, mem_limit_mb)
