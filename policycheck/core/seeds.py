"""Every random choice of a run, derived from the run's seed and a key naming the choice.

One derivation for the whole program: :class:`policycheck.metrics.base.EvaluationContext`
hands its evaluators these generators, and anything that must replay a
metric's random stream outside a run (the reverse-mapped export of the
linkage metrics' pre-sampled sets) derives it here from the same seed and
key, so the two cannot drift apart.
"""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy loads only when a choice is drawn
    import numpy as np


def seed_sequence(seed: int, *key: str | int) -> np.random.SeedSequence:
    """The seed sequence of the choice named ``key`` in a run seeded ``seed``.

    Derived from the seed and the key only (each word's CRC-32 as the spawn
    key), so a result does not depend on which rules run or in what order.
    """
    import numpy as np

    words = [zlib.crc32(str(k).encode()) for k in key]
    return np.random.SeedSequence(entropy=seed, spawn_key=tuple(words))


def generator(seed: int, *key: str | int) -> np.random.Generator:
    """A generator for the choice named ``key`` in a run seeded ``seed`` (see :func:`seed_sequence`)."""
    import numpy as np

    return np.random.default_rng(seed_sequence(seed, *key))
