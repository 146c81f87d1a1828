"""The settings a job reads: a frozen record of named values, rebuilt from the job's params.

The Snakemake master builds one per job from the config (``featlearn.pipeline.settings.build``, the
fields declared by the job's kind in ``featlearn.pipeline.jobs``) and passes it as ``asdict()``, a dict
in field order that Snakemake compares to decide reruns.  The job rebuilds it with
:meth:`JobSettings.from_dict` and its numerics take it whole (attribute access; nothing is looked up
in an untyped dict); it writes the same dict into its provenance record.

This module is all a job script needs of the settings: the kinds and the config rules stay in the
master, so that declaring or editing a kind changes no job's code stamp (``featlearn.pipeline.deps``)
and reruns nothing; a changed value reruns its jobs through their params.

Because Snakemake reruns a job when its ``params`` change, a kind's settings carry only the fields its
job's code reads: a field that is not read would rerun the job for an edit that cannot change its
result.  With ``FEATLEARN_SETTINGS_READS`` set, every job process records at exit which fields it read
(the workflow test checks with a tracked run that every field is read).
"""

import atexit
import dataclasses
import functools
import json
import os
from dataclasses import dataclass, field

READS_ENV = "FEATLEARN_SETTINGS_READS"
"""If set, a file to which every job process appends, at exit, the fields of each settings object it
rebuilt (``from_dict``) and which of them its code read (one JSON line per object)."""

_TRACKED = []


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
        """Rebuild from ``asdict()`` (in a job script), tracking which fields the job reads.  Called on
        ``JobSettings`` itself, the record's fields are the keys of ``values`` in order
        (:func:`record_class`); on a settings class, unknown or missing keys raise TypeError."""
        target = record_class(tuple(values)) if cls is JobSettings else cls
        obj = target(**{k: frozen(v) for k, v in values.items()})
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
    """A settings class whose fields are the names of ``parts`` in order, less ``without``; ``supported``
    is its ``SUPPORTED``."""
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


@functools.cache
def record_class(names):
    """The settings class of a job that rebuilds its settings from its params alone: fields ``names``."""
    return settings_class("Settings", "The settings a job read from its params.", names)
