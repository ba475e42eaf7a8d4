"""The branch and bound's prefix tree: reference records sorted by their categorical codes.

The codes of the categorical columns with fewest levels first make the levels of an implicit tree;
within a leaf the rows are sorted on the first numeric column.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numba
import numpy as np


@dataclass(frozen=True)
class PrefixTree:
    """Reference records sorted by categorical codes: an implicit prefix tree.

    Attributes
    ----------
    rows : numpy.ndarray
        Encoded reference rows, sorted by their categorical columns.
    original : numpy.ndarray
        Original index of each sorted row.
    run_end : numpy.ndarray
        ``run_end[d, j]``: one past the last sorted row sharing row ``j``'s
        first ``d + 1`` categorical codes (the end of ``j``'s node at depth
        ``d + 1``).
    stack : int
        Most nodes a depth-first walk can have pending: the root plus, at
        every depth, the most children one node has (the walk holds the
        unvisited siblings of one node per depth).
    """

    rows: np.ndarray
    original: np.ndarray
    run_end: np.ndarray
    stack: int = 1


def tree_column_order(reference: np.ndarray, n_cat: int) -> np.ndarray:
    """Column order for the prefix tree: categorical columns with fewest levels first, then the rest.

    The mismatch count does not depend on the order of the categorical
    columns, so any order gives the same sums; few levels near the root keep
    the tree narrow where every query walks it.
    """
    levels = [_distinct_count(reference[:, d]) for d in range(n_cat)]
    cat = sorted(range(n_cat), key=lambda d: (levels[d], d))
    return np.array(cat + list(range(n_cat, reference.shape[1])), dtype=np.int64)


def _distinct_count(column: np.ndarray) -> int:
    """``np.unique(column).size``, counted without sorting where the values are small integers (codes).

    A categorical column's encoded values are its level codes, -1 for missing: counted in one pass.
    """
    if column.size == 0:
        return 0
    low, high = column.min(), column.max()
    if low >= -1 and high < 4 * column.size:  # False for NaN, which np.unique counts once
        codes = column.astype(np.int64)
        if np.array_equal(codes, column):
            return int(np.count_nonzero(np.bincount(codes + 1)))
    return int(np.unique(column).size)


def build_prefix_tree(
    reference: np.ndarray, n_cat: int, columns: np.ndarray | None = None, empty: Callable[..., np.ndarray] = np.empty
) -> PrefixTree:
    """Sort the reference rows by their categorical codes, then by their first numeric column.

    The rows are taken with their columns in ``columns`` order (all, as they
    are, by default; see :func:`tree_column_order`), categorical first. The
    categorical codes make the levels of the prefix tree; within a leaf
    (equal codes) rows are sorted by the first non-categorical column,
    missing values first, for the projection bound of the leaf scan. The
    sort is stable: equal rows keep their original order. ``empty``
    allocates the tree's arrays (an executor's, to build them where its
    workers read them).
    """
    n, p = reference.shape
    columns = np.arange(p, dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    packed = _packed_codes(reference, columns[:n_cat])
    span = int(packed.max()) + 1 if packed is not None else 0
    if packed is not None and span <= 4 * n:
        # The same order in two passes: a stable sort on the numeric column, then a counting sort
        # on the packed codes, stable too (at 10^6 rows 0.11 s against lexsort's 0.27 s).
        by_value = np.argsort(reference[:, columns[n_cat]], kind="stable") if n_cat < p else np.arange(n)
        original = _counting_sort(packed, by_value.astype(np.int64), span)
    else:
        # np.lexsort sorts by the last key first; packed codes, when there are, stand for every categorical key.
        last = n_cat if n_cat < p else n_cat - 1
        keys = [reference[:, columns[d]] for d in range(last, -1, -1)]
        if packed is not None:
            keys = ([reference[:, columns[n_cat]]] if n_cat < p else []) + [packed]
        original = np.lexsort(keys).astype(np.int64) if keys else np.arange(n, dtype=np.int64)
    rows = empty((n, p), np.float64)
    _gather(reference, original, columns, rows)
    run_end = empty((n_cat, n), np.int64)
    if n == 0:
        return PrefixTree(rows, original, run_end)
    change = np.zeros(n, dtype=bool)
    change[0] = True
    stack = 1
    for d in range(n_cat):
        parents = change.copy()
        change[1:] |= rows[1:, d] != rows[:-1, d]
        _run_ends(change, run_end[d])
        stack += _most_children(parents, change)
    return PrefixTree(rows, original, run_end, stack)


@numba.njit(cache=True, nogil=True)
def _counting_sort(keys: np.ndarray, order: np.ndarray, span: int) -> np.ndarray:  # pragma: no cover - compiled
    """``order`` stably sorted by ``keys[order]`` (integers in ``[0, span)``): a counting sort."""
    start = np.zeros(span + 1, dtype=np.int64)
    for i in range(keys.size):
        start[keys[i] + 1] += 1
    for k in range(span):
        start[k + 1] += start[k]
    out = np.empty(order.size, dtype=np.int64)
    for i in range(order.size):
        k = keys[order[i]]
        out[start[k]] = order[i]
        start[k] += 1
    return out


@numba.njit(cache=True, nogil=True)
def _gather(x: np.ndarray, rows: np.ndarray, columns: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover
    """``out[:] = x[np.ix_(rows, columns)]`` in one pass, into a given array."""
    for i in range(rows.size):
        r = rows[i]
        for k in range(columns.size):
            out[i, k] = x[r, columns[k]]


def _packed_codes(reference: np.ndarray, columns: np.ndarray) -> np.ndarray | None:
    """The categorical codes (``columns``) of each row as one integer ordered as the codes are, or None.

    A mixed-radix number; codes are small integers (-1 for missing). None when
    they are not, or when the packed number would not fit in 62 bits (see
    :func:`_walk_keys`).
    """
    if columns.size < 2 or len(reference) == 0:
        return None
    keys = _walk_keys(reference, np.arange(len(reference), dtype=np.int64), columns)
    return keys if keys.size else None


@numba.njit(cache=True, nogil=True)
def _walk_keys(queries: np.ndarray, rows: np.ndarray, columns: np.ndarray) -> np.ndarray:  # pragma: no cover
    """Each row's categorical codes (in ``columns`` order) as one mixed-radix integer, in one pass.

    Empty when a code is not an integer or the keys would not fit in 62 bits.
    """
    m = columns.size
    low = np.full(m, np.inf)
    high = np.full(m, -np.inf)
    for i in rows:
        for j in range(m):
            v = queries[i, columns[j]]
            if v != np.floor(v):  # also NaN
                return np.empty(0, dtype=np.int64)
            low[j] = min(low[j], v)
            high[j] = max(high[j], v)
    span = 1.0
    for j in range(m):
        span *= high[j] - low[j] + 1.0
    if span >= 2.0**62:
        return np.empty(0, dtype=np.int64)
    keys = np.empty(rows.size, dtype=np.int64)
    for t in range(rows.size):
        key = np.int64(0)
        for j in range(m):
            key = key * np.int64(high[j] - low[j] + 1.0) + np.int64(queries[rows[t], columns[j]] - low[j])
        keys[t] = key
    return keys


@numba.njit(cache=True, nogil=True)
def _most_children(parents: np.ndarray, children: np.ndarray) -> int:  # pragma: no cover - compiled
    """The most ``children`` run starts inside one ``parents`` run (both flag run starts)."""
    most = 0
    count = 0
    for j in range(parents.size):
        if parents[j]:
            count = 0
        if children[j]:
            count += 1
            most = max(most, count)
    return most


@numba.njit(cache=True, nogil=True)
def _run_ends(starts: np.ndarray, out: np.ndarray) -> None:  # pragma: no cover - compiled
    """``out[j]``: the first run start after row ``j`` (``n`` for the last run), one backward pass."""
    end = starts.size
    for j in range(starts.size - 1, -1, -1):
        out[j] = end
        if starts[j]:
            end = j
