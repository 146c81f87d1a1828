"""Config activations and losses (``activations:``, name -> sympy expression in z; ``losses:``, name
-> sympy expression in e; docs/model.md) and which model kernel a compute job runs.

A job whose activation or loss is a config entry runs the generated kernel module
``results/.kernels/<tag>.py`` (``featlearn.model.catalogue.config_kernel_source``: the built-ins and
those entries) with a numba cache of its own, ``results/.numba_cache/<tag>/<program>/``
(``jobs.Kind.program``: a script, or a kind that names its function).  The tag names the entries:
``<name>_<hash of the expression>`` for a config activation, ``loss-<name>_<hash>`` for a config
loss, joined by ``__`` when a job has both.  numba keys a cached
kernel by its own file and signature, not by the kernels it calls, so a cache compiled with one
kernel module inlined must never be found by a process that loaded another.  A job of a built-in
activation and loss has no tag: its kernel, cache and inputs are those of a config without config
entries.
"""

import functools
import hashlib
import itertools
from pathlib import Path

from featlearn.model.loss_choice import loss_name
from featlearn.pipeline import jobs
from featlearn.pipeline.deps import kernel_closure_names, kernel_modules

HASH_DIGITS = 10
"""Hex digits of the SHA-256 of an expression in its tag."""

LOSS_PREFIX = "loss-"
"""The prefix of a config loss's part of a tag."""


def config_entries(config, section):
    """{name: expression} of the config's own activations (``section`` "activations") or losses
    ("losses"); empty without that section."""
    return config.get(section) or {}


def _part(name, text):
    """``<name>_<hash>``: the first ``HASH_DIGITS`` hex digits of the SHA-256 of the expression, so
    editing the expression gives a new kernel and cache."""
    return f"{name}_{hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS]}"


def kernel_entries(config, activation, loss=None):
    """((activation, expression) or None, (loss, expression) or None): the config entries a job of
    ``activation`` and ``loss`` needs in its kernel module."""
    activations, losses = config_entries(config, "activations"), config_entries(config, "losses")
    return (
        (activation, activations[activation]) if activation in activations else None,
        (loss, losses[loss]) if loss in losses else None,
    )


def kernel_tag(config, activation, loss=None):
    """The tag of the kernel module of a job of ``activation`` and ``loss``, None when both are
    built-in."""
    act, los = kernel_entries(config, activation, loss)
    parts = ([_part(*act)] if act else []) + ([LOSS_PREFIX + _part(*los)] if los else [])
    return "__".join(parts) or None


def kernel_tags(config):
    """{tag: (activation entry or None, loss entry or None)} of every combination of a config
    activation or a built-in one with a config loss or a built-in one, but for built-in with
    built-in (see :func:`kernel_entries`)."""
    activations = [*config_entries(config, "activations"), None]
    losses = [*config_entries(config, "losses"), None]
    out = {}
    for activation, loss in itertools.product(activations, losses):
        tag = kernel_tag(config, activation, loss)
        if tag is not None:
            out[tag] = kernel_entries(config, activation, loss)
    return out


def job_kernel_tag(config, rule, wildcards):
    """The kernel tag of the compute job of ``rule`` at ``wildcards`` (its settings' ``activation``
    and loss, built only when the config has activations or losses of its own), None for a built-in
    activation and loss."""
    if not (config_entries(config, "activations") or config_entries(config, "losses")):
        return None
    settings = jobs.KIND[rule].build(config, wildcards)
    return kernel_tag(config, settings.activation, loss_name(settings))


def program_files(program, root):
    """(script file, package root, imports) of ``program`` (``jobs.Kind.program``; a name that is no
    kind's program is a script's), in the checkout ``root``: the arguments of ``deps``' functions."""
    kind = next((k for k in jobs.KINDS if k.program == program), None)
    script, imports = (kind.script, kind.imports) if kind else (program, ())
    return Path(root) / "workflow" / "scripts" / f"{script}.py", Path(root) / "src" / "featlearn", imports


def program_kernel_modules(program, root):
    """The kernel modules ``program`` runs (``deps.kernel_modules``)."""
    return kernel_modules(*program_files(program, root))


@functools.cache
def kernel_leader(program, root):
    """The program whose numba cache ``program``'s shares: the first warmed program of the job
    registry (``jobs.KINDS``) that runs the same kernel modules (:func:`program_kernel_modules`;
    ``root``: the checkout).  Its warm-up would compile exactly the same kernels, so a follower's
    cache folder is a link to its leader's (rule numba_cache_link); a program leads itself."""
    mine = program_kernel_modules(program, root)
    return next((p for p in warmed_programs() if program_kernel_modules(p, root) == mine), program)


@functools.cache
def kernel_bases(program, root):
    """{module: the leader program whose warm-up compiled its kernels} for every module of
    ``program``'s kernel closure (``deps.kernel_closure``: its kernel modules and what they import)
    that a leader with a strict subset of ``program``'s kernel modules compiles (the largest such
    leader first, then registry order), so that ``program``'s warm-up copies those compiled kernels
    (``io.warmup.seed_kernel_cache``) and compiles only the rest.  A copy is what compiling would
    give: a kernel's code does not depend on the process that compiled it (every kernel declares its
    fastmath flags), and a smaller leader's kernel closure lies inside ``program``'s, so an edit that
    re-warms a base re-warms ``program`` too.  ``root``: the checkout."""
    modules = {p: set(program_kernel_modules(p, root)) for p in warmed_programs()}
    mine = set(program_kernel_modules(program, root))
    smaller = [p for p in modules if kernel_leader(p, root) == p and modules[p] < mine]
    bases = {}
    for leader in sorted(smaller, key=lambda p: -len(modules[p])):
        for module in kernel_closure_names(*program_files(leader, root)):
            bases.setdefault(module, leader)
    return bases


def warmed_programs():
    """The warmed programs of the job registry (``jobs.Kind.program``), in its order (the one list:
    leaders, bases, the warm-ups' wildcard constraints and kernel stamps)."""
    return list(dict.fromkeys(kind.program for kind in jobs.KINDS if kind.warm))
