"""Seeds derived from a job's identity, never from scheduling order (docs/model.md, "Seeds and thresholds").

A trial's identity is a tuple such as (base_seed, experiment, activation, d, δ, trial).  Its
canonical text is hashed with SHA-256 and the digest seeds a :class:`numpy.random.SeedSequence`;
independent streams for the training data, the test data and the initialisation are spawned
from it, so any trial can be regenerated bit for bit from its recorded identity.
"""

import hashlib

import numpy as np

STREAMS = ("train", "test", "init")


def identity_entropy(*identity):
    """A 128-bit integer from the canonical text of ``identity`` (floats written with repr)."""
    text = "|".join(repr(float(v)) if isinstance(v, float) else str(v) for v in identity)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:16], "little")


def trial_generators(*identity):
    """Independent generators {"train", "test", "init"} for the trial ``identity``."""
    children = np.random.SeedSequence(identity_entropy(*identity)).spawn(len(STREAMS))
    return {name: np.random.default_rng(child) for name, child in zip(STREAMS, children, strict=True)}
