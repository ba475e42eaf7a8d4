"""A reference set prepared for the searches, and the executor task that searches one chunk of queries.

The three exact searches (branch and bound, projection scan, blocked brute force) take their arrays from
:class:`_Reference`, built when first asked for; :func:`search_chunk` runs the chosen one on a chunk.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from policycheck.methods.nearest_neighbours.branch_and_bound import _branch_and_bound
from policycheck.methods.nearest_neighbours.brute_force import _brute_force
from policycheck.methods.nearest_neighbours.prefix_tree import (
    PrefixTree,
    _gather,
    _walk_keys,
    build_prefix_tree,
    tree_column_order,
)
from policycheck.methods.nearest_neighbours.projection import _projection_keys, _projection_scan

#: Reference records per block of the brute force: one column's slice (4 KB) stays in L1.
BLOCK_REFERENCE = 512

#: Queries per block of the brute force: each reference block is read once per query block.
BLOCK_QUERIES = 64

#: Columns summed between two checks whether a whole reference block is already beaten.
CHECK_EVERY = 4

#: Slack on the projection bound: a rounding of the keys never drops a record the sums would keep.
PROJECTION_SLACK = 1e-9

TREE = "branch and bound"
BRUTE_FORCE = "brute force"
PROJECTION = "projection scan"


class _Reference:
    """A reference set prepared for the searches (each built when first asked for)."""

    def __init__(self, reference: np.ndarray, n_cat: int, empty: Callable[..., np.ndarray] = np.empty) -> None:
        self.reference = reference
        self.n_cat = n_cat
        self.empty = empty  # allocates the search arrays (an executor's: where its workers read them)
        self._columns: np.ndarray | None = None
        self._tree: PrefixTree | None = None
        self._by_column: np.ndarray | None = None
        self._projection: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @property
    def pruned(self) -> str:
        """The search that prunes here: the branch and bound, or without categorical columns the projection scan."""
        return TREE if self.n_cat else PROJECTION

    def pruned_build(self) -> Callable[[], object]:
        """What builds the pruned search's arrays."""
        return self.tree if self.n_cat else self.projection

    def projection(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The projection scan's rows sorted by key, their keys and original indices, built on first use."""
        if self._projection is None:
            keys = _projection_keys(self.reference)
            original = np.argsort(keys, kind="stable").astype(np.int64)
            rows = self.empty(self.reference.shape, np.float64)
            _gather(self.reference, original, np.arange(self.reference.shape[1], dtype=np.int64), rows)
            sorted_keys = self.empty(keys.shape, np.float64)
            sorted_keys[...] = keys[original]
            self._projection = (rows, sorted_keys, original)
        return self._projection

    @property
    def columns(self) -> np.ndarray:
        """The prefix tree's column order (see :func:`tree_column_order`), found on first use."""
        if self._columns is None:
            self._columns = tree_column_order(self.reference, self.n_cat)
        return self._columns

    def tree(self) -> PrefixTree:
        """The branch and bound's prefix tree, built on first use."""
        if self._tree is None:
            self._tree = build_prefix_tree(self.reference, self.n_cat, self.columns, self.empty)
        return self._tree

    def by_column(self) -> np.ndarray:
        """The brute force's column-major copy of the reference, built on first use."""
        if self._by_column is None:
            self._by_column = self.empty(self.reference.shape[::-1], np.float64)
            self._by_column[...] = self.reference.T
        return self._by_column

    def walk_order(self, queries: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``rows`` of ``queries`` in the order of the prefix tree's leaves.

        Consecutive queries then walk the same branches and scan the same
        leaves, which stay in cache; every query's answer is its own, so the
        order changes only the time.
        """
        if rows.size < 2:
            return rows
        if self.n_cat == 0:
            # Consecutive queries of close keys scan the same sorted rows.
            return rows[np.argsort(_projection_keys(queries[rows]), kind="stable")]
        keys = _walk_keys(queries, rows, np.ascontiguousarray(self.columns[: self.n_cat]))
        if keys.size == 0:  # codes that do not pack into 63 bits: sort on the codes themselves
            return rows[np.lexsort(queries[np.ix_(rows, self.columns[: self.n_cat])].T[::-1])]
        return rows[np.argsort(keys)]  # ties in any order: it changes only the time

    def keep(self, methods: set[str]) -> None:
        """Drop the arrays of a search no job chose (each is as large as the reference set)."""
        if TREE not in methods:
            self._tree = None
        if PROJECTION not in methods:
            self._projection = None
        if BRUTE_FORCE not in methods:
            self._by_column = None

    def task(self, method: str, queries: np.ndarray, rows: np.ndarray | None = None) -> tuple[Any, ...]:
        """An executor item: the method, the queries (``rows`` of them, all by default) and the reference arrays.

        Every chunk of a job carries the same query and reference arrays, so the
        executor shares them once; :func:`search_chunk` gathers its rows.
        """
        if method == TREE:
            tree = self.tree()
            return (TREE, queries, rows, self.columns, tree.rows, tree.original, tree.run_end, self.n_cat, tree.stack)
        if method == PROJECTION:
            return (PROJECTION, queries, rows, *self.projection())
        return (BRUTE_FORCE, queries, rows, self.by_column())


def search_chunk(task: tuple[Any, ...]) -> np.ndarray:
    """Executor task: the closest reference record of each query in one chunk (smallest index among ties)."""
    if task[0] == TREE:
        _, queries, rows, columns, tree_rows, original, run_end, n_cat, stack = task
        # The chunk's rows, columns in the tree's order: a compiled gather, a quarter of NumPy's np.ix_ time.
        rows = np.arange(len(queries), dtype=np.int64) if rows is None else rows.astype(np.int64, copy=False)
        chunk = np.empty((rows.size, columns.size))
        _gather(queries, rows, columns, chunk)
        best: np.ndarray = _branch_and_bound(chunk, tree_rows, original, run_end, n_cat, stack)
        return best
    if task[0] == PROJECTION:
        _, queries, rows, sorted_rows, keys, original = task
        chunk = queries if rows is None else queries[rows]
        best = _projection_scan(
            np.ascontiguousarray(chunk), sorted_rows, keys, original, CHECK_EVERY, PROJECTION_SLACK * queries.shape[1]
        )
        return best
    _, queries, rows, by_column = task
    chunk = queries if rows is None else queries[rows]
    best = _brute_force(np.ascontiguousarray(chunk), by_column, BLOCK_QUERIES, BLOCK_REFERENCE, CHECK_EVERY)
    return best


def tree_search(queries: np.ndarray, reference: np.ndarray, n_cat: int) -> np.ndarray:
    """The branch and bound alone: closest reference row of every query."""
    return search_chunk(_Reference(reference, n_cat).task(TREE, queries))


def projection_search(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The projection scan alone (no categorical columns): closest reference row of every query."""
    return search_chunk(_Reference(reference, 0).task(PROJECTION, queries))


def brute_force_search(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """The blocked brute force alone: closest reference row of every query."""
    return search_chunk(_Reference(reference, 0).task(BRUTE_FORCE, queries))
