"""A synthesizer's transition matrix over count tables (paper 004, sec. 3): the model, the table space, files.

A synthesizer over count tables is fully described by its conditional
distribution ``Pr[m | n]``: rows are the confidential tables ``n`` (``k``
cell counts summing to ``n``), columns are the outputs ``m``. The paper reads
differential privacy off the *columns* of that matrix
(:mod:`policycheck.methods.dp.matrix_audit`).

The paper's two synthesizers are built as matrices by
:mod:`policycheck.methods.dp.matrix_families`; a matrix file (:func:`load_matrix`)
audits any other synthesizer. A table space too large to audit exactly is
refused (:class:`TableSpaceTooLarge`).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

#: Largest transition matrix (rows x outputs) audited exactly by default.
MAX_MATRIX_CELLS = 20_000_000
#: Rows of the matrix whose sum strays further from 1 are refused.
ROW_SUM_TOLERANCE = 1e-4


class TableSpaceTooLarge(ValueError):
    """The exact audit would need a transition matrix too large to hold."""


@dataclass(frozen=True)
class TransitionMatrix:
    """``Pr[m | n]`` of a synthesizer over count tables (paper 004, sec. 3)."""

    #: (T, k) cell counts of each confidential table, one per row.
    tables: np.ndarray
    #: (T, O) probability of each output given each table.
    probabilities: np.ndarray
    #: One label per output column.
    output_labels: tuple[str, ...]
    #: How the matrix was made, for the report.
    description: str

    @property
    def n(self) -> int:
        return int(self.tables[0].sum())

    @property
    def k(self) -> int:
        return int(self.tables.shape[1])

    def table_labels(self) -> list[str]:
        return [table_label(t) for t in self.tables]


def table_label(table: Sequence[int]) -> str:
    """``(0, 5)`` for a two-cell table with counts 0 and 5."""
    return "(" + ", ".join(str(int(c)) for c in table) + ")"


def count_tables(n: int, k: int) -> int:
    """Number of count tables of ``n`` records over ``k`` cells: C(n + k - 1, k - 1)."""
    return math.comb(n + k - 1, k - 1)


def enumerate_tables(n: int, k: int) -> np.ndarray:
    """Every table of ``n`` records over ``k`` cells, in lexicographic order.

    For ``k = 2`` this is the paper's row order ``(0, n), (1, n - 1), ...``.
    """
    import numpy as np

    rows = []
    # NOTE: stars and bars: choosing k - 1 bar positions among n + k - 1 slots.
    for bars in itertools.combinations(range(n + k - 1), k - 1):
        edges = (-1, *bars, n + k - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(k)])
    return np.array(rows, dtype=np.int64).reshape(-1, k)


def guard_size(rows: int, outputs: int, limit: int, what: str) -> None:
    """Refuse an exact audit whose matrix would exceed ``limit`` cells."""
    if rows * outputs > limit:
        raise TableSpaceTooLarge(
            f"{what} has {rows:,} tables x {outputs:,} outputs = {rows * outputs:,} matrix cells, "
            f"above the exact-audit limit of {limit:,}; coarsen the domain (fewer cells or records)"
        )


def load_matrix(path: Path, n: int | None = None, k: int | None = None) -> TransitionMatrix:
    """Read a transition matrix from a CSV or NPY file.

    CSV: a header row; the first column, named ``n``, holds each row's table
    as counts separated by spaces (``0 5``); every other column is one output,
    labelled by its header. NPY: a 2-D array whose rows are the tables of
    ``n`` records over ``k`` cells in lexicographic order
    (:func:`enumerate_tables`); ``n`` and ``k`` must be given.

    Probabilities are used as given (no renormalisation), after checking they
    are finite, non-negative and that every row sums to 1 within
    :data:`ROW_SUM_TOLERANCE`.
    """
    import numpy as np
    import pandas as pd

    path = Path(path)
    if not path.is_file():
        raise ValueError(f"matrix file {path} does not exist")
    suffix = path.suffix.lower()
    if suffix == ".npy":
        if n is None or k is None:
            raise ValueError(f"matrix file {path}: an NPY matrix needs params n and k to name its rows")
        try:
            probabilities = np.load(path, allow_pickle=False)
        except ValueError as exc:
            raise ValueError(f"matrix file {path} is not a numeric NPY array: {exc}") from exc
        tables = enumerate_tables(n, k)
        if probabilities.ndim != 2 or probabilities.shape[0] != len(tables):
            raise ValueError(
                f"matrix file {path} has shape {probabilities.shape}; expected {len(tables)} rows, "
                f"one per table of n={n} records over k={k} cells"
            )
        labels = tuple(str(j) for j in range(probabilities.shape[1]))
    elif suffix == ".csv":
        frame = pd.read_csv(path, dtype={0: str})
        if frame.columns[0] != "n" or frame.shape[1] < 2:
            raise ValueError(f"matrix file {path}: the first column must be 'n' (each row's table) followed by outputs")
        try:
            rows = [[int(c) for c in str(cell).split()] for cell in frame["n"]]
        except ValueError as exc:
            raise ValueError(f"matrix file {path}: column 'n' must hold integer counts separated by spaces") from exc
        if len({len(r) for r in rows}) != 1 or len(rows[0]) < 2:
            raise ValueError(f"matrix file {path}: every table in column 'n' needs the same number (>= 2) of cells")
        tables = np.array(rows, dtype=np.int64)
        if len(set(tables.sum(axis=1).tolist())) != 1 or np.any(tables < 0):
            raise ValueError(f"matrix file {path}: the tables in column 'n' must be non-negative with one common total")
        if len({tuple(r) for r in rows}) != len(rows):
            raise ValueError(f"matrix file {path}: a table appears twice in column 'n'")
        try:
            probabilities = frame.iloc[:, 1:].to_numpy(dtype=float)
        except ValueError as exc:
            raise ValueError(f"matrix file {path}: output columns must hold numbers") from exc
        labels = tuple(str(c) for c in frame.columns[1:])
    else:
        raise ValueError(f"matrix file {path}: expected a .csv or .npy file")
    if not np.all(np.isfinite(probabilities)) or np.any(probabilities < 0):
        raise ValueError(f"matrix file {path}: probabilities must be finite and non-negative")
    sums = probabilities.sum(axis=1)
    bad = np.flatnonzero(np.abs(sums - 1) > ROW_SUM_TOLERANCE)
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"matrix file {path}: row {table_label(tables[i])} sums to {sums[i]:.6f}, not 1")
    return TransitionMatrix(tables, probabilities.astype(float), labels, f"matrix file {path.name}")
