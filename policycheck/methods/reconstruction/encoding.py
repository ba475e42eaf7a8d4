"""Integer codes for columns, so that marginal queries become cell counts.

Paper 001 works on discrete attributes only (sec. 5.1). Numeric columns are
cut into quantile bins of the original data; the bins are part of the
attacker's query language, not of the data, and are documented in each
result. A missing value is a value like any other: every column has one more
code, its last, for "missing" (a query can ask for records whose work class
is missing), so records with missing quasi-identifiers stay in the queries.
A value the reference never shows is :data:`UNSEEN` and falls in no cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Code of a value the reference data never shows: such a value falls in no
#: query cell. (A missing value has a code of its own, see :meth:`Encoding.codes`.)
UNSEEN = -1


@dataclass(frozen=True)
class Encoding:
    """Per-column code books fitted on a reference frame (the attacker's view).

    ``levels[c]`` lists the categories of a categorical column; ``edges[c]``
    the inner bin edges of a numeric column (``len(edges) + 1`` bins). Each
    column has one code more for a missing value: the last, ``radix - 1``.
    """

    columns: tuple[str, ...]
    levels: dict[str, np.ndarray]
    edges: dict[str, np.ndarray]

    @property
    def radix(self) -> np.ndarray:
        """Number of codes per column, in ``columns`` order (the last one is "missing")."""
        return np.array(
            [len(self.edges[c]) + 2 if c in self.edges else len(self.levels[c]) + 1 for c in self.columns],
            dtype=np.int64,
        )

    def codes(self, frame: pd.DataFrame) -> np.ndarray:
        """Code every row of ``frame``: an ``(n, len(columns))`` int64 array.

        A missing value gets its column's last code; a category outside the
        code book gets :data:`UNSEEN`.
        """
        out = np.empty((len(frame), len(self.columns)), dtype=np.int64)
        radix = self.radix
        for j, col in enumerate(self.columns):
            missing = frame[col].isna().to_numpy()
            if col in self.edges:
                values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
                code = np.searchsorted(self.edges[col], values, side="right").astype(np.int64)
                code[np.isnan(values)] = UNSEEN  # text in a numeric column
            else:
                code = pd.Index(self.levels[col]).get_indexer(frame[col]).astype(np.int64)
            code[missing] = radix[j] - 1
            out[:, j] = code
        return out


def fit_encoding(
    reference: pd.DataFrame,
    columns: Sequence[str],
    numeric: Sequence[str],
    numeric_bins: int,
) -> Encoding:
    """Fit code books on ``reference``: observed categories, quantile bins.

    Parameters
    ----------
    reference
        The records whose values define the domain (the original data: the
        repository enumerates values observed there, notes sec. 1(b)).
    columns
        Columns to encode.
    numeric
        Which of them are numeric; they get ``numeric_bins`` quantile bins
        (fewer when quantiles coincide, e.g. a mostly-zero column).
    numeric_bins
        Bins per numeric column.
    """
    levels: dict[str, np.ndarray] = {}
    edges: dict[str, np.ndarray] = {}
    for col in columns:
        if col in numeric:
            values = pd.to_numeric(reference[col], errors="coerce").dropna().to_numpy(dtype=float)
            if values.size == 0:
                edges[col] = np.array([], dtype=float)
                continue
            inner = np.quantile(values, np.linspace(0.0, 1.0, numeric_bins + 1)[1:-1])
            # NOTE: a bin edge equal to the minimum would leave the first bin empty.
            edges[col] = np.unique(inner[inner > values.min()])
        else:
            levels[col] = np.array(sorted(pd.unique(reference[col].dropna()), key=str), dtype=object)
    return Encoding(tuple(columns), levels, edges)


def describe_bins(encoding: Encoding) -> dict[str, list[float]]:
    """JSON-ready inner bin edges of each numeric column (for report details)."""
    return {c: [float(e) for e in encoding.edges[c]] for c in encoding.columns if c in encoding.edges}
