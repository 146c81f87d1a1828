"""A config as Snakemake builds it (``load_config``), edited one key at a time, and which jobs the edit
touches (from the two registries).

An edit of leaf key K (``with_edit``, to another valid value of its type, ``edited``) changes the
params of some jobs (``params_by_output``: every compute job of ``featlearn.pipeline.jobs`` and every
table and figure job of ``featlearn.pipeline.result_rules``, by first output), adds jobs or removes
them: ``param_changes``.  The rerun tests (tests/test_reruns.py) check that the changed jobs are
exactly the readers of K (the jobs whose params' origins name K, ``reads``), and
``featlearn.pipeline.explain`` tells a user what editing K does.
"""

import copy
from pathlib import Path

import yaml
from snakemake.utils import update_config

from featlearn.pipeline import jobs, result_rules


def load_config(paths):
    """The config Snakemake builds from ``--configfile`` ``paths``: each file merged into the ones
    before it, dictionaries key by key (``snakemake.utils.update_config``)."""
    config = {}
    for path in paths:
        update_config(config, yaml.safe_load(Path(path).read_text()))
    return config


ALTERNATIVE = {
    "he2": "bump",
    "bump": "he2",
    "square": "he2",
    "easy_hard": "he2",
    "gelu": "quad",
    "quad": "gelu",
    "relu": "gelu",
    "tanh": "gelu",
    "erf": "gelu",
    "random": "spectral",
    "spectral": "random",
    "e1": "random",
    "float32": "float64",
    "float64": "float32",
    "none": "variance",
    "variance": "none",
    "second_moment": "none",
    "final": "max",
}
"""A valid other value for the enumerated strings of the config."""


def edited(value):
    """Another value of the same type, valid where it can be."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):  # a level or probability stays inside (0, 1)
        return round((1 + value) / 2 if 0 < value < 1 else value * 1.1 + 0.01, 6)
    if isinstance(value, str):
        return ALTERNATIVE.get(value, value + "x")
    return 1.0


def _index(node, part):
    """The index or key of ``node`` that the dotted-key part ``part`` names (a list index, a string
    key, or an integer key such as a d of ``delta_at``)."""
    if isinstance(node, list) or (part not in node and part.isdigit()):
        return int(part)
    return part


def with_edit(config, key, value):
    out = copy.deepcopy(config)
    *path, last = key.split(".")
    node = out
    for part in path:
        node = node[_index(node, part)]
    node[_index(node, last)] = value
    return out


def reads(origins, key):
    """Whether params from ``origins`` read ``key`` (a list-valued origin covers its elements)."""
    return any(key == o or key.startswith(o + ".") for o in origins)


def params_by_output(config):
    """{output: (params, origins)} of every compute, table and figure job (the two registries)."""
    return jobs.params_by_output(config) | result_rules.params_by_output(config)


def param_changes(config, key, before=None):
    """(changed, readers, added, removed) outputs when ``key`` is edited, from the registries."""
    before = before or params_by_output(config)
    after = params_by_output(with_edit(config, key, edited(leaf(config, key))))
    common = before.keys() & after.keys()
    changed = {o for o in common if before[o][0] != after[o][0]}
    readers = {o for o in common if reads(before[o][1], key)}
    return changed, readers, after.keys() - before.keys(), before.keys() - after.keys()


def leaf(config, key):
    """The value of ``config`` at dotted ``key``."""
    node = config
    for part in key.split("."):
        node = node[_index(node, part)]
    return node
