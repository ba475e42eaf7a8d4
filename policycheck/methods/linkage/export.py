"""Export reverse-mapped synthetic sets (paper 000, sec. 3.1).

A reverse-mapped set ``Z^m`` keeps every marginal of the original exactly
and, the paper argues, adds no risk: the small noise it drops cannot change
ranks, so it never protected anyone. The CLI's ``--export-reverse-mapped``
writes them with :func:`export_reverse_mapped`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from policycheck.io.outputs import atomic_write_text
from policycheck.methods.linkage.presampling import presample
from policycheck.methods.linkage.reverse_mapping import attribute_order, reverse_map_frame
from policycheck.release.model import Release


def export_reverse_mapped(release: Release, out_dir: Path, rngs: Sequence[np.random.Generator]) -> list[Path]:
    """Write each synthetic set of ``release``, pre-sampled and reverse-mapped, as CSV (sec. 3.1).

    Every column is reverse-mapped: numbers by value, ordinal categories by
    the manifest's order, nominal categories by their frequency in the
    original (see :func:`.reverse_mapping.attribute_order`). Each file is
    written to a temporary file in ``out_dir`` and then renamed over its
    target, so a reader never sees half a file.

    Parameters
    ----------
    release
        The release whose synthetic sets are exported.
    out_dir
        Folder for the files (created if missing).
    rngs
        One generator per synthetic set, for pre-sampling sets whose size
        differs from the original's; pass the ones the linkage metrics use
        (``ctx.rng("linkage", "presample", m)``) to export what they linked.

    Returns
    -------
    list of Path
        ``reverse_mapped_<m>_<name>.csv`` for ``m = 1..M``, in release order.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    original = release.original.frame
    orders = {
        c: attribute_order(c, release.column_types[c], original[c], release.orders.get(c)) for c in original.columns
    }
    paths = []
    for m, (dataset, set_rng) in enumerate(zip(release.synthetic, rngs, strict=True), start=1):
        rows, _ = presample(dataset.n_rows, len(original), set_rng)
        mapped = reverse_map_frame(original, dataset.frame.iloc[rows].reset_index(drop=True), orders)
        target = out_dir / export_name(m, dataset)
        atomic_write_text(target, _whole_numbers_as_int(mapped).to_csv(index=False))
        paths.append(target)
    return paths


def export_name(m: int, dataset: Any) -> str:
    """The file name synthetic set ``m`` (1-based) is exported under: ``reverse_mapped_<m>_<name>.csv``."""
    stem = dataset.path.stem if dataset.path is not None else dataset.name
    return f"reverse_mapped_{m}_{re.sub(r'[^A-Za-z0-9_.-]+', '_', stem).strip('_')}.csv"


def _whole_numbers_as_int(frame: pd.DataFrame) -> pd.DataFrame:
    """Print 39, not 39.0, for float columns holding whole numbers (as the inputs usually do)."""
    out = frame.copy()
    for col in out.columns:
        values = out[col]
        if values.dtype.kind == "f" and np.all(np.isnan(values) | (values == np.round(values))):
            out[col] = values.astype("Int64")
    return out
