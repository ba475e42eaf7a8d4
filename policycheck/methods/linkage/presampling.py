"""Pre-sampling: align every synthetic set with the size of the original (paper 000, sec. 3.1).

Reverse mapping compares sets of the same size ``n``. A synthetic set with
``n_m > n`` records is randomly sub-sampled to ``n``; one with ``n_m < n``
is super-sampled by drawing ``n - n_m`` additional records (with
replacement) from its own ``n_m`` records; one with ``n_m = n`` is kept.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Presampling:
    """What pre-sampling did to one synthetic set, for the report."""

    action: str  # "unchanged", "sub-sampled" or "super-sampled"
    from_rows: int
    to_rows: int

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "from_rows": self.from_rows, "to_rows": self.to_rows}


def presample(n_synthetic: int, n: int, rng: np.random.Generator) -> tuple[np.ndarray, Presampling]:
    """Row indices of ``Q^m``, the synthetic set aligned to ``n`` records (sec. 3.1).

    Parameters
    ----------
    n_synthetic
        ``n_m``, the number of records of the synthetic set.
    n
        ``n``, the number of records of the original set.
    rng
        Source of the random selection (the caller seeds it and records the key).

    Returns
    -------
    rows, record
        ``rows`` indexes the synthetic set: kept rows in their original order
        (sub-sampling keeps row order, so deterministic tie-breaking by
        position still applies), then any added rows.
    """
    if n_synthetic <= 0 or n <= 0:
        raise ValueError(f"cannot pre-sample between {n_synthetic} synthetic and {n} original records")
    if n_synthetic > n:
        rows = np.sort(rng.choice(n_synthetic, size=n, replace=False))
        return rows, Presampling("sub-sampled", n_synthetic, n)
    if n_synthetic < n:
        extra = rng.integers(0, n_synthetic, size=n - n_synthetic)
        return np.concatenate([np.arange(n_synthetic), extra]), Presampling("super-sampled", n_synthetic, n)
    return np.arange(n), Presampling("unchanged", n, n)
