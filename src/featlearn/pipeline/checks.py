"""Every check the JSON schema cannot express, run on the whole config before any job.

Each failure is one :class:`ConfigError` naming the offending key, e.g.
``config error at 'width.groups.gelu.1': 'gelu_m3' is not in sweeps (gelu, quad, ...)``.
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
    key = ".".join(str(p) for p in error.absolute_path) or "<top level>"
    alternatives = (
        error.parent if error.parent is not None and error.parent.validator in ("oneOf", "anyOf") else None
    )
    if alternatives is not None or error.validator == "contains":
        node = (alternatives or error).schema
        return ConfigError(key, f"{allowed(node, schema)}, got {error.instance!r}")
    return ConfigError(key, error.message)


def allowed(node, schema):
    """What the schema ``node`` allows, in words ("a number > 0 or null", "a list of theta, a, b
    containing theta"), for the one-line error of a value that fits none of its alternatives."""
    if "$ref" in node:
        target = schema
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        return allowed({**target, **{k: v for k, v in node.items() if k != "$ref"}}, schema)
    for combine in ("oneOf", "anyOf"):
        if combine in node:
            return " or ".join(allowed(option, schema) for option in node[combine])
    if "allOf" in node:
        return "; ".join(allowed(part, schema) for part in node["allOf"])
    if "const" in node:
        return repr(node["const"])
    if "enum" in node:
        return "one of " + ", ".join(map(str, node["enum"]))
    kind = node.get("type")
    if kind == "null":
        return "null"
    if kind in ("number", "integer"):
        bounds = [f"{sign} {node[word]}" for word, sign in BOUNDS.items() if word in node]
        return " ".join(["a number" if kind == "number" else "an integer", ", ".join(bounds)]).strip()
    if kind == "array":
        items = node.get("items", {})
        what = ", ".join(map(str, items["enum"])) if "enum" in items else items and allowed(items, schema)
        text = (
            "a list"
            + (f" of {what}" if what else "")
            + (" without repeats" if node.get("uniqueItems") else "")
        )
        return text + (f" containing {allowed(node['contains'], schema)}" if "contains" in node else "")
    if kind == "string":
        return "a string" + (f" matching {node['pattern']}" if "pattern" in node else "")
    return kind or "a valid value"


BOUNDS = {"exclusiveMinimum": ">", "minimum": "≥", "exclusiveMaximum": "<", "maximum": "≤"}
"""The JSON schema's numeric bounds, as ``allowed`` writes them."""


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


def config_expressions(config):
    """Each config activation (``activations:``, an expression in z; ``catalogue.parse``) and config
    loss (``losses:``, an expression in e; ``catalogue.parse_loss``) has a name that is not a
    built-in's and an expression that parses (its one-line ``ExpressionError`` otherwise)."""
    rules = (("activations", catalogue.BUILT_IN, "activation", catalogue.parse),)
    rules += (("losses", catalogue.BUILT_IN_LOSSES, "loss", catalogue.parse_loss),)
    for section, built_in, kind, parse in rules:
        for name, text in kernels.config_entries(config, section).items():
            if name in built_in:
                raise ConfigError(
                    f"{section}.{name}", f"{name!r} is a built-in {kind}: give the expression another name"
                )
            try:
                parse(text)
            except catalogue.ExpressionError as error:
                raise ConfigError(f"{section}.{name}", str(error)) from None


def loss_references(config):
    """Every ``loss`` the config names is a built-in loss or a config loss."""
    known = {*catalogue.BUILT_IN_LOSSES, *kernels.config_entries(config, "losses")}
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
            raise ConfigError(s.origin.get("loss", job.cells_from), "Huber's loss needs its threshold huber")
        if threshold is not None and loss not in (None, "huber"):
            raise ConfigError(
                s.origin.get("huber", job.cells_from), f"huber is Huber's threshold, but the loss is {loss!r}"
            )


def link_expressions(config):
    """Every link the config names (a key ``link``) is a built-in link or an expression that
    ``link_expressions.parse`` accepts."""
    for key, name in _walk(config):
        if key.rsplit(".", 1)[-1] != "link" or not isinstance(name, str):
            continue
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
            merged = jobs.settings_of("design_theory", config, design=name)
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


def _activations(config):
    """The activations a config may name (the built-in ones and its own) and what a wrong one is not."""
    built_in = ", ".join(catalogue.BUILT_IN)
    names = (*catalogue.BUILT_IN, *kernels.config_entries(config, "activations"))
    return names, f"is neither a built-in activation ({built_in}) nor in activations"


ACTIVATION_USES = (
    *(f"{section}.*.activation" for section in ("sweeps", "grokking", "theory.models", "design.designs")),
    "landscape.activation",
    "conventions.plateau.activation",
    *(f"{table}.<>" for table in ("learning_rate", "steps", "hessian.delta", "hessian.histogram")),
)
"""Every place the config names an activation: a section's ``activation`` and the keys of the
per-activation tables."""

REFERENCES = (
    *((pattern, _activations) for pattern in ACTIVATION_USES),
    ("figure1.random", "sweeps"),
    ("figure1.spectral", "sweeps"),
    ("easy_hard.sweep", "sweeps"),
    ("claims.sweeps.*", "sweeps"),
    ("width.groups.*.*", "sweeps"),
    ("sweeps.*.delta_at.<>", "sweeps.{0}.d"),
    ("sweeps.*.design", "design.designs"),
    ("hessian.histogram.*.*", "hessian.delta.{0}"),
    ("landscape.activation", "hessian.delta", "Fig 3 runs with the Hessian cells' settings"),
    ("theory.simulation.delta.<>", "theory.models"),
    ("theory.simulation.delta.*.*", "theory.models.{0}.delta", "the referee is compared at the same δ"),
    ("theory.hessian_overlay.*", "theory.models"),
    ("theory.hessian_overlay.<>", "hessian.delta"),
    ("theory.validation.model", "theory.simulation.delta"),
    ("theory.validation.step", "theory.simulation.spectrum_steps"),
    ("escape.cases.<>", "theory.models"),
    ("escape.signal.cases.<>", "theory.models"),
    ("escape.prediction.models.<>", "theory.models"),
    ("escape.prediction.models.*.sweep", "sweeps"),
    ("escape.finite_n.models.<>", "theory.models"),
    ("escape.finite_n.models.*.sweep", "sweeps"),
    ("escape.finite_n.models.<>", "escape.finite_n.horizon", "each predicted model needs its horizon"),
    (
        "escape.finite_n.hessian_d.*",
        "escape.finite_n.d",
        "the finite Hessian is computed at predicted d only",
    ),
    (
        "escape.finite_n.level_d.<>",
        "escape.finite_n.models",
        "a success level is computed for a predicted model",
    ),
    (
        "escape.finite_n.models.<>",
        "escape.finite_n.level_horizon",
        "each predicted model needs its level horizon",
    ),
    (
        "escape.finite_n.models.<>",
        "escape.finite_n.level_d",
        "each predicted model needs its level dimensions",
    ),
    (
        "escape.finite_n.level_d.*.*",
        "escape.finite_n.hessian_d",
        "the success level is computed where the finite Hessian is",
    ),
    (
        "escape.finite_n.init_d.<>",
        "escape.finite_n.models",
        "the trial's own DMFT is computed for a predicted model",
    ),
    (
        "escape.finite_n.models.<>",
        "escape.finite_n.init_d",
        "each predicted model needs its dimensions of the trial's own DMFT",
    ),
    (
        "escape.finite_n.init_d.*.*",
        "escape.finite_n.d",
        "the trial's own DMFT is computed at predicted d only",
    ),
    ("escape.two_stage.models.<>", "theory.models"),
    ("escape.two_stage.models.*.sweep", "sweeps"),
    ("finite_size.models.*.sweep", "sweeps"),
    ("finite_size.models.*.theory", "theory.models"),
    ("finite_size.models.*.paper", "claims.paper"),
    ("design.sweeps.include.*", "design.designs"),
)
"""(entries, what they name, why): every config entry matching the dotted pattern (``*`` any key
or index, ``<>`` the keys of a dict) names a key of the dict, or an element of the list, at the
target path (``{0}``: the pattern's first ``*``), or one of the names a function of the config
gives (with what a wrong name is not)."""


def _entries(node, parts, path=(), caught=()):
    """(config key, value, the keys ``*`` matched) of every entry of ``node`` matching ``parts``."""
    if not parts:
        yield ".".join(path), node, caught
    elif parts[0] == "<>":
        for k in node if isinstance(node, dict) else ():
            yield ".".join((*path, str(k))), k, caught
    elif parts[0] == "*":
        items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
        for k, v in items:
            yield from _entries(v, parts[1:], (*path, str(k)), (*caught, k))
    elif isinstance(node, dict) and parts[0] in node:
        yield from _entries(node[parts[0]], parts[1:], (*path, parts[0]), caught)


def references(config):
    """Every entry of ``REFERENCES`` names what it must."""
    for pattern, target, *why in REFERENCES:
        for key, value, caught in _entries(config, pattern.split(".")):
            if callable(target):
                names, what = target(config)
            else:
                path = target.format(*caught)
                try:
                    names = settings.lookup(config, path)[0]
                except KeyError:
                    names = ()
                what = f"is not in {path} ({', '.join(map(str, names)) or 'none'})"
            if value not in names:
                raise ConfigError(key, f"{value!r} {what}{': ' + why[0] if why else ''}")


def easy_hard_link(config):
    sweeps = config["sweeps"]
    link = sweeps[config["easy_hard"]["sweep"]].get("link", config["defaults"]["link"])
    if get_link(link).k != 2 or get_link(link).hard != (1,):
        raise ConfigError(
            "easy_hard.sweep", f"its link {link!r} is not g1 easy and g2 hard (k = 2, hard direction g2)"
        )


def hessian_links(config):
    """The Hessian cells' link has a hard direction to project out."""
    for act in config["hessian"]["delta"]:
        link = jobs.settings_of("hessian_cell", config, activation=act).link
        if not get_link(link).hard:
            raise ConfigError("hessian", f"the link {link!r} has no hard direction to project out")


def horizons(config):
    """Every reported or recorded step is within its horizon; the success level's horizon (E25) runs
    past the window's, whose end it kicks at."""
    theory, escape = config["theory"], config["escape"]
    for key, steps, horizon in (
        ("theory.report_steps", theory["report_steps"], theory["horizon"]),
        ("theory.simulation.spectrum_steps", theory["simulation"]["spectrum_steps"], theory["horizon"]),
        ("escape.report_steps", escape["report_steps"], escape["horizon"]),
    ):
        if max(steps) > horizon:
            raise ConfigError(key, f"step {max(steps)} is beyond the horizon {horizon}")
    finite_n = escape.get("finite_n") or {"models": {}}
    for model in finite_n["models"]:
        level, window = finite_n["level_horizon"][model], finite_n["horizon"][model]
        if level <= window:
            raise ConfigError(
                f"escape.finite_n.level_horizon.{model}",
                f"{level} steps, but the success level kicks at the window's end, up to step {window}",
            )


PREDICTED_CONVENTIONS = (*settings.MODEL[2:], "train", "huber", "loss")
"""What a predicted sweep must share with its theory model for the prediction to be about it: what
defines the model (``settings.MODEL``, less the draws' identity: seed and experiment), the
trained layers and the loss."""


def predicted_models(config):
    """Each predicted model's sweep (of ``escape.prediction`` and ``escape.finite_n``) trains the same
    model."""
    for kind in ("prediction", "finite_n"):
        _same_model(config, kind)


def _same_model(config, kind):
    for model, spec in (config["escape"].get(kind) or {"models": {}})["models"].items():
        theory = settings.conventions(config, f"theory.models.{model}")
        sweep = settings.conventions(config, f"sweeps.{spec['sweep']}")
        for name in PREDICTED_CONVENTIONS:
            if settings.frozen(theory[name]) != settings.frozen(sweep[name]):
                raise ConfigError(
                    f"escape.{kind}.models.{model}.sweep",
                    f"sweep {spec['sweep']!r} has {name} = {sweep[name]!r}, model {model!r} has "
                    f"{theory[name]!r}: the prediction would be about another model",
                )


def one_model_per_sweep(config):
    """A sweep is analysed by one finite-size model and predicted by one ``escape.finite_n`` model at
    most: its phase figure's threshold lines and the claims read that one model."""
    sections = (("finite_size.models", config["finite_size"]["models"]),)
    sections += (
        ("escape.finite_n.models", ((config.get("escape") or {}).get("finite_n") or {}).get("models", {})),
    )
    for section, models in sections:
        seen = {}
        for name, spec in models.items():
            if spec["sweep"] in seen:
                raise ConfigError(
                    f"{section}.{name}.sweep",
                    f"sweep {spec['sweep']!r} is already that of {seen[spec['sweep']]!r}",
                )
            seen[spec["sweep"]] = name


def design_family(config):
    """Each design is measured by one sweep at most; the family's parameter is no name an expression
    already uses, and its expression parses for every value of the parameter in its bounds (checked
    at both ends and the middle)."""
    named = {}
    for sweep, spec in config["sweeps"].items():
        if spec.get("design") in named:
            raise ConfigError(
                f"sweeps.{sweep}.design",
                f"{spec['design']!r} is already measured by sweep {named[spec['design']]!r}",
            )
        if "design" in spec:
            named[spec["design"]] = sweep
    design = config.get("design") or {}
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
    """No two figures share a stem (a stem names one file)."""
    stems = [f.stem for f in manifest.figures(config)]
    duplicates = sorted({s for s in stems if stems.count(s) > 1})
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
            job.cells_from,
            f"{job.rule} ({cell}) needs ~{job.mem_mb} MB, more than the {limit_mb} MB available{others}",
        )


CHECKS = (
    finite_numbers,
    link_expressions,
    config_expressions,
    loss_references,
    references,
    easy_hard_link,
    hessian_links,
    horizons,
    one_model_per_sweep,
    design_family,
    unique_stems,
    supported_options,
    loss_thresholds,
    link_requirements,
    predicted_models,  # last: a value a job refuses is named at its own key first
)


def check_config(config, mem_limit_mb=None, schema=None):
    """The config check run before any job: the JSON ``schema`` (if given), then every check it cannot
    express; raise the first :class:`ConfigError`."""
    error = schema_error(config, schema) if schema is not None else None
    if error is not None:
        raise error
    try:
        for check in CHECKS:
            check(config)
        memory(config, mem_limit_mb)
    except settings.MissingKeys as missing:  # a job needs a value no key gives (e.g. an activation's η)
        keys = missing.keys
        raise ConfigError(
            keys[-1], f"a job needs this value and no key gives it: set {' or '.join(keys)}"
        ) from None
