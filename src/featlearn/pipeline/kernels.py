"""Config activations (``activations:``, name -> sympy expression in z; docs/model.md) and which
activation kernel a compute job runs.

A job whose activation is a config activation runs the generated kernel module
``results/.kernels/<tag>.py`` (``featlearn.model.catalogue.config_kernel_source``: the built-ins and
that one entry) with a numba cache of its own, ``results/.numba_cache/<tag>/<script>/``, where the
tag is ``<name>_<hash of the expression>``.  numba keys a cached kernel by its own file and signature,
not by the kernels it calls, so a cache compiled with one activation module inlined must never be
found by a process that loaded another.  A job of a built-in activation has no tag: its kernel,
cache and inputs are those of a config without config activations.
"""

import hashlib

from featlearn.pipeline import jobs

HASH_DIGITS = 10
"""Hex digits of the SHA-256 of an expression in its tag."""


def config_activations(config):
    """{name: expression} of the config's own activations (empty without an ``activations`` section)."""
    return config.get("activations") or {}


def kernel_tag(config, activation):
    """``<name>_<hash>`` of config activation ``activation`` (the first ``HASH_DIGITS`` hex digits of
    the SHA-256 of its expression: editing the expression gives a new kernel and cache), None for a
    built-in activation."""
    text = config_activations(config).get(activation)
    if text is None:
        return None
    return f"{activation}_{hashlib.sha256(text.encode()).hexdigest()[:HASH_DIGITS]}"


def kernel_tags(config):
    """{tag: (name, expression)} of every config activation."""
    return {kernel_tag(config, name): (name, text) for name, text in config_activations(config).items()}


def job_kernel_tag(config, rule, wildcards):
    """The kernel tag of the activation the compute job of ``rule`` at ``wildcards`` runs (its
    settings' ``activation``, built only when the config has activations of its own), None for a
    built-in activation."""
    if not config_activations(config):
        return None
    return kernel_tag(config, jobs.KIND[rule].settings(config, wildcards).activation)
