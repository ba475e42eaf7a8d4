"""Exact distance to closest record (DCR) under Gower's distance, without an n x m matrix.

Paper 002 (sec. 3 and 5) defines ``DCR = min(D_i1, ..., D_iN)`` over the N
records of a reference set. We compute it exactly, with the nearest record's
smallest index among ties, in three steps:

1. **Exact copies.** A query identical to a reference record has DCR 0; the
   smallest index among its copies is found by a 64-bit hash of every row,
   a stable argsort of each matrix's hashes, one merge of the query and
   reference hashes and an exact comparison of the rows whose hashes agree
   (so a hash collision never makes a false copy). Each matrix is hashed
   and sorted once per call, whatever its role in the jobs; with several
   workers the matrices, and then the references' search structures, are
   prepared on as many threads.
2. **One of the exact searches per job**, chosen by a pilot: the brute
   force and a pruned search (the branch and bound, or without categorical
   columns the projection scan) run on the same few queries and the faster
   one searches the rest (their answers are identical, so the choice
   changes only the time).

   - *Branch and bound* over the categorical codes: the reference records
     are sorted by them, which makes them the leaves of an implicit prefix
     tree (the categorical columns with fewest levels at the top, so a
     1,000-level column does not give the root 1,000 branches). A
     depth-first walk carries the number of categorical mismatches so far,
     a lower bound of ``p * D`` for every record below, and skips a subtree
     as soon as that bound exceeds the best total found; the child matching
     the query is walked first. In a leaf, rows are sorted on the first
     numeric column and scanned outward from the query's value until that
     column's term alone lifts the bound above the best; each record is
     abandoned once its partial sum exceeds the best. It wins when the
     categorical columns discriminate.
   - *Blocked brute force*: every reference record, but in blocks of
     :data:`BLOCK_REFERENCE` records (columns contiguous, so the inner loop
     is SIMD arithmetic) against blocks of :data:`BLOCK_QUERIES` queries (so
     a block is read from cache, not memory, by every query); a block is
     abandoned when every partial sum in it exceeds the best. It wins when
     pruning fails: many continuous columns, categorical columns with many
     levels.
   - *Projection scan* (no categorical column, where the prefix tree is a
     single leaf sorted on one column): the reference records sorted by the
     sum of their values (clipped to [0, 1], a missing value as 0.5), whose
     difference between two records is a lower bound of their ``p * D``;
     from the query's key outward, stopping when the key gap exceeds the
     best. It wins when the queries have near copies: on 30 continuous
     columns (20,000 rows, a noisy bootstrap), synthetic -> training 5.0x
     fewer CPU-seconds than the brute force (8.5 % of the records visited),
     training -> synthetic 1.1x; against records with no near copy (holdout)
     it visits about 60 % and is 0.6x, so the pilot keeps the brute force.

   Every per-feature term is ``min(|a - b|, 1)`` on the encoding: the
   numeric difference when both are present, 1 for a categorical mismatch
   or a missing value against a present one, 0 for two missing values.
3. **The canonical distance.** Both searches add the terms in scan order
   from 0, as :func:`policycheck.methods.gower.gower_sums` does, so their
   sums equal the canonical ones bit for bit; a record whose sum equals the
   best wins when its index is smaller, so ties go to the smallest index
   whatever the walk order. The chosen neighbour's distance is recomputed
   with the canonical formula.

The branch and bound takes its queries in the order of the tree's leaves
(sorted by their categorical codes), so consecutive queries walk the same
branches and scan the same leaves while they are in cache; on 500,000 mixed
rows this made the search about three times faster. Queries are then cut
into chunks, each a separate task of ``executor.map``; the query and
reference arrays are the same objects in every chunk, so the executor sends
them to each worker once. The pilot's time per query also tells the executor
how many workers the search is worth.

Why not a k-d tree (or a vantage-point tree): Gower is an L1 distance on an exact embedding, but on
Adult-like data with no copies (nearest neighbour about 1.5 mismatches away
in some 60 dimensions) a tree stops pruning and is 50x slower than on a
bootstrap release; with 30 continuous columns scipy's cKDTree was no faster
than the branch and bound.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np

from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.methods.gower import CATEGORY

#: Queries per task at most; small enough for progress, large enough to amortise a task.
MAX_CHUNK = 8192

#: Rows of all matrices of a call from which its preparation runs on several threads.
THREADS_FROM_ROWS = 50_000

#: Queries of a job timed with both searches to choose between them.
PILOT_QUERIES = 16

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


@dataclass(frozen=True)
class Neighbours:
    """Each query's closest reference record.

    Attributes
    ----------
    distance : numpy.ndarray
        Gower distance ``D`` to the closest reference record (the DCR).
    index : numpy.ndarray
        Row index of that record in the reference set (smallest among ties).
    method : str
        The search that found the records not copied exactly
        (:data:`TREE`, :data:`PROJECTION` or :data:`BRUTE_FORCE`), or
        ``"exact copies"``.
    """

    distance: np.ndarray
    index: np.ndarray
    method: str = TREE


@dataclass(frozen=True)
class SearchJob:
    """One nearest-neighbour search: every query row against every reference row."""

    queries: np.ndarray
    reference: np.ndarray


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


def closest_records(
    jobs: Sequence[SearchJob],
    kinds: np.ndarray,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Neighbours]:
    """Distance to closest record for each job (paper 002, sec. 3 and 5).

    All jobs' chunks go to one ``executor.map`` call, so the workers stay busy
    across jobs.

    Parameters
    ----------
    jobs : sequence of SearchJob
        Encoded query and reference matrices (see ``GowerEncoding.encode``),
        categorical columns first.
    kinds : numpy.ndarray
        Kind code of every encoded column.
    executor : Executor, optional
        Runs the chunks; serial by default.
    progress : callable, optional
        Called with ``(done, total)`` chunks.

    Returns
    -------
    list of Neighbours
        One per job, in job order.
    """
    kinds = np.ascontiguousarray(kinds, dtype=np.int8)
    n_cat = int(np.sum(kinds == CATEGORY))
    if np.any(kinds[:n_cat] != CATEGORY):
        raise ValueError("categorical columns must come first in the encoded rows")
    if any(job.reference.shape[0] == 0 for job in jobs):
        raise ValueError("the reference set of a nearest-neighbour search is empty")
    executor = executor or SerialExecutor()
    compile_search()
    copies = _CopyFinder()
    matrices = list({id(x): x for job in jobs for x in (job.queries, job.reference)}.values())
    # The preparation is per matrix and per reference, independent, and mostly GIL-free
    # (compiled or NumPy sorts): with several workers, threads do it side by side, unless
    # the matrices are so small that starting the threads costs more than it saves.
    threads = executor.workers if sum(x.shape[0] for x in matrices) >= THREADS_FROM_ROWS else 1
    _side_by_side(copies.sort, matrices, threads)
    index = _side_by_side(lambda job: copies.find(job.queries, job.reference), jobs, threads)
    searches: dict[int, _Reference] = {}
    for job, found in zip(jobs, index, strict=True):
        if (found < 0).any() and id(job.reference) not in searches:
            searches[id(job.reference)] = _Reference(job.reference, n_cat, executor.empty)
    # Each search structure is a separate item, the trees (the longer builds) first, so two
    # threads share three references' work evenly instead of one building two trees.
    builds = [s.pruned_build() for s in searches.values()] + [s.by_column for s in searches.values()]
    _side_by_side(lambda build: build(), builds, threads)
    plans = []
    for job, found in zip(jobs, index, strict=True):
        rest = np.flatnonzero(found < 0)
        if rest.size == 0:
            plans.append((rest, "exact copies", 0.0))
            continue
        search = searches[id(job.reference)]
        pilot, rest = rest[:PILOT_QUERIES], rest[PILOT_QUERIES:]
        method, per_query = _pilot(search, job.queries, pilot, found)
        plans.append((rest, method, per_query * rest.size))

    # The pruned searches' queries in the order of the tree's leaves or of their keys, on threads (compiled, GIL-free).
    def in_walk_order(j: int) -> np.ndarray:
        rest, method, _ = plans[j]
        return (
            searches[id(jobs[j].reference)].walk_order(jobs[j].queries, rest) if method in (TREE, PROJECTION) else rest
        )

    orders = _side_by_side(in_walk_order, list(range(len(jobs))), threads)
    plans = [(order, method, seconds) for order, (_, method, seconds) in zip(orders, plans, strict=True)]
    cost = sum(seconds for _, _, seconds in plans)
    workers = executor.workers_for(cost)
    total_rest = sum(rest.size for rest, _, _ in plans)
    chunk = max(256, min(MAX_CHUNK, -(-total_rest // (4 * workers))))
    chosen: dict[int, set[str]] = {}
    for job, (_, method, _) in zip(jobs, plans, strict=True):
        chosen.setdefault(id(job.reference), set()).add(method)
    for key, search in searches.items():
        search.keep(chosen[key])
    tasks, owners = [], []
    for j, (job, (rest, method, _)) in enumerate(zip(jobs, plans, strict=True)):
        for start in range(0, rest.size, chunk):
            rows = rest[start : start + chunk]
            # The whole query matrix in every task (shared with the workers once); each task gathers its rows.
            tasks.append(searches[id(job.reference)].task(method, job.queries, rows))
            owners.append((j, rows))
    found_rest = executor.map(search_chunk, tasks, progress, cost=cost) if tasks else []
    for (j, rows), best in zip(owners, found_rest, strict=True):
        index[j][rows] = best
    # The canonical distances, a job per thread (compiled, GIL-free).
    sums = _side_by_side(
        lambda j: _sums_to(jobs[j].queries, jobs[j].reference, index[j], kinds), list(range(len(jobs))), threads
    )
    return [
        Neighbours(distance=total / job.queries.shape[1], index=idx, method=method)
        for job, idx, total, (_, method, _) in zip(jobs, index, sums, plans, strict=True)
    ]


@numba.njit(cache=True, nogil=True)
def _sums_to(  # pragma: no cover - compiled
    queries: np.ndarray, reference: np.ndarray, index: np.ndarray, kinds: np.ndarray
) -> np.ndarray:
    """``gower_sums(queries, reference[index], kinds)`` in one pass, without gathering the rows.

    The same terms added in the same order from 0 as
    :func:`policycheck.methods.gower.gower_sums`, so the same bits.
    """
    n, p = queries.shape
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        r = index[i]
        total = 0.0
        for k in range(p):
            x = queries[i, k]
            y = reference[r, k]
            if kinds[k] == CATEGORY:
                d = 1.0 if x != y else 0.0
            elif x >= 0.0 and y >= 0.0:
                d = abs(x - y)
            elif (x < 0.0) != (y < 0.0):
                d = 1.0
            else:
                d = 0.0
            total = total + d
        out[i] = total
    return out


def _side_by_side(fn: Callable[[Any], Any], items: Sequence[Any], threads: int) -> list[Any]:
    """``[fn(x) for x in items]``, on up to ``threads`` threads (results in order)."""
    if threads <= 1 or len(items) <= 1:
        return [fn(x) for x in items]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(min(threads, len(items))) as pool:
        return list(pool.map(fn, items))


def _pilot(search: _Reference, queries: np.ndarray, pilot: np.ndarray, found: np.ndarray) -> tuple[str, float]:
    """Time the brute force and the pruned search on the ``pilot`` queries; store their answers in ``found``.

    The pruned search is the branch and bound, or, without categorical
    columns, the projection scan. Returns the faster search and its seconds
    per query. Times are this thread's CPU time, so a busy machine that
    deschedules the process does not tilt the choice. The pruned search
    first meets a quarter of the pilot: where it does not prune, one of its
    queries can cost as much as the brute force's whole pilot, so it stops
    there when already four times slower. Both searches' arrays are built
    before (outside the timing).
    """
    pruned = search.pruned
    t0 = time.thread_time()
    found[pilot] = search_chunk(search.task(BRUTE_FORCE, queries, pilot))
    brute = (time.thread_time() - t0) / pilot.size
    head = pilot[: max(1, pilot.size // 4)]
    t0 = time.thread_time()
    search_chunk(search.task(pruned, queries, head))
    tree = (time.thread_time() - t0) / head.size
    if tree <= 4 * brute and head.size < pilot.size:
        tail = pilot[head.size :]
        t0 = time.thread_time()
        search_chunk(search.task(pruned, queries, tail))
        tree = (tree * head.size + time.thread_time() - t0) / pilot.size
    return (pruned, tree) if tree <= brute else (BRUTE_FORCE, brute)


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
        chunk = queries[:, columns] if rows is None else queries[np.ix_(rows, columns)]
        best: np.ndarray = _branch_and_bound(np.ascontiguousarray(chunk), tree_rows, original, run_end, n_cat, stack)
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


def tree_column_order(reference: np.ndarray, n_cat: int) -> np.ndarray:
    """Column order for the prefix tree: categorical columns with fewest levels first, then the rest.

    The mismatch count does not depend on the order of the categorical
    columns, so any order gives the same sums; few levels near the root keep
    the tree narrow where every query walks it.
    """
    levels = [np.unique(reference[:, d]).size for d in range(n_cat)]
    cat = sorted(range(n_cat), key=lambda d: (levels[d], d))
    return np.array(cat + list(range(n_cat, reference.shape[1])), dtype=np.int64)


def exact_copy_index(queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """Smallest index of a reference row identical to each query row, or -1.

    Encoded rows are equal exactly when their Gower distance is 0, so these
    queries need no search.
    """
    return _CopyFinder().find(queries, reference)


class _CopyFinder:
    """Exact copies by row hashes; each matrix hashed and sorted once, however many jobs use it."""

    def __init__(self) -> None:
        self._hashes: dict[int, np.ndarray] = {}
        self._sorted: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def hashes(self, x: np.ndarray) -> np.ndarray:
        if id(x) not in self._hashes:
            # + 0.0 makes -0.0 into 0.0: equal values, equal bits.
            self._hashes[id(x)] = _row_hashes(np.ascontiguousarray(x + 0.0).view(np.uint64))
        return self._hashes[id(x)]

    def sort(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Row order of ``x`` by hash, and the sorted hashes (computed once per matrix)."""
        if id(x) not in self._sorted:
            h = self.hashes(x)
            # Stable: rows with equal hashes stay in index order, so the first exact match is the smallest index.
            order = np.argsort(h, kind="stable")
            self._sorted[id(x)] = (order, h[order])
        return self._sorted[id(x)]

    def find(self, queries: np.ndarray, reference: np.ndarray) -> np.ndarray:
        # Both sides sorted by hash: one merge pass instead of a binary search per query
        # (a matrix is usually both, a query set in one direction and a reference in another).
        q_order, q_sorted = self.sort(queries)
        r_order, r_sorted = self.sort(reference)
        found: np.ndarray = _copies_by_merge(
            np.ascontiguousarray(queries), np.ascontiguousarray(reference), q_order, q_sorted, r_order, r_sorted
        )
        return found


def compile_search() -> None:
    """Compile the searches in this process, or load them from numba's on-disk cache.

    Called before chunks go to a pool, so that workers forked afterwards
    inherit the compiled code and the others find it in the cache, instead
    of every worker compiling it at once; and before the pilot is timed.
    """
    rows = np.zeros((1, 2))
    tree = build_prefix_tree(rows, 1)
    by_column = np.ascontiguousarray(rows.T)
    _branch_and_bound(rows, tree.rows, tree.original, tree.run_end, 1, tree.stack)
    _brute_force(rows, by_column, BLOCK_QUERIES, BLOCK_REFERENCE, CHECK_EVERY)
    keys, original = _projection_keys(rows), np.zeros(1, np.int64)
    _projection_scan(rows, rows.copy(), keys.copy(), original, CHECK_EVERY, 0.0)
    # Workers read the reference arrays from shared memory, read-only: another specialisation.
    for array in (tree.rows, tree.original, tree.run_end, by_column, keys, original):
        array.flags.writeable = False
    _branch_and_bound(rows, tree.rows, tree.original, tree.run_end, 1, tree.stack)
    _brute_force(rows, by_column, BLOCK_QUERIES, BLOCK_REFERENCE, CHECK_EVERY)
    frozen_rows = rows.copy()
    frozen_rows.flags.writeable = False
    _projection_scan(rows, frozen_rows, keys, original, CHECK_EVERY, 0.0)
    _copies_by_merge(
        rows, rows, np.zeros(1, np.int64), np.zeros(1, np.uint64), np.zeros(1, np.int64), np.zeros(1, np.uint64)
    )
    _row_hashes(rows.view(np.uint64))
    _walk_keys(rows, np.zeros(1, np.int64), np.zeros(1, np.int64))
    _gather(rows, np.zeros(1, np.int64), np.zeros(2, np.int64), np.empty((1, 2)))
    _most_children(np.ones(1, np.bool_), np.ones(1, np.bool_))
    _counting_sort(np.zeros(1, np.int64), np.zeros(1, np.int64), 1)
    _sums_to(rows, rows, np.zeros(1, np.int64), np.zeros(2, np.int8))


@numba.njit(cache=True, nogil=True)
def _row_hashes(bits: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """A 64-bit hash of every row of a float matrix seen as its bit patterns (splitmix64 mixing)."""
    n, p = bits.shape
    out = np.empty(n, dtype=np.uint64)
    for i in range(n):
        h = np.uint64(0x9E3779B97F4A7C15) ^ np.uint64(p)
        for k in range(p):
            z = h ^ bits[i, k]
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h = z ^ (z >> np.uint64(31))
        out[i] = h
    return out


@numba.njit(cache=True, nogil=True)
def _copies_by_merge(  # pragma: no cover - compiled
    queries: np.ndarray,
    reference: np.ndarray,
    q_order: np.ndarray,
    q_sorted: np.ndarray,
    r_order: np.ndarray,
    r_sorted: np.ndarray,
) -> np.ndarray:
    """For each query, the first reference row of equal hash (in ``r_order``) that is equal, else -1."""
    n_q, p = queries.shape
    n_r = r_sorted.size
    out = np.full(n_q, -1, dtype=np.int64)
    i = 0
    lo = 0
    while i < n_q:
        h = q_sorted[i]
        while lo < n_r and r_sorted[lo] < h:
            lo += 1
        hi = lo
        while hi < n_r and r_sorted[hi] == h:
            hi += 1
        while i < n_q and q_sorted[i] == h:
            qi = q_order[i]
            for s in range(lo, hi):
                j = r_order[s]
                equal = True
                for k in range(p):
                    if queries[qi, k] != reference[j, k]:
                        equal = False
                        break
                if equal:
                    out[qi] = j
                    break
            i += 1
    return out


@numba.njit(cache=True, nogil=True)
def _brute_force(  # pragma: no cover - compiled
    queries: np.ndarray, by_column: np.ndarray, block_q: int, block_r: int, check_every: int
) -> np.ndarray:
    """Closest reference record of every query by exhaustive, blocked comparison.

    ``by_column`` is the reference transposed (one contiguous row per
    column). Each query's sums over a reference block are built column by
    column in scan order (the canonical order); after every
    ``check_every`` columns the block is dropped if no partial sum can still
    reach the best, which never drops a tie.
    """
    n_q, p = queries.shape
    n_r = by_column.shape[1]
    acc = np.empty(block_r, dtype=np.float64)
    best = np.full(n_q, np.inf)
    best_idx = np.full(n_q, -1, dtype=np.int64)
    for q0 in range(0, n_q, block_q):
        q1 = min(q0 + block_q, n_q)
        for r0 in range(0, n_r, block_r):
            m = min(block_r, n_r - r0)
            for i in range(q0, q1):
                for j in range(m):
                    acc[j] = 0.0
                bound = best[i]
                k = 0
                alive = True
                while k < p:
                    stop = min(k + check_every, p)
                    for kk in range(k, stop):
                        a = queries[i, kk]
                        col = by_column[kk, r0 : r0 + m]
                        for j in range(m):
                            acc[j] += min(abs(a - col[j]), 1.0)
                    k = stop
                    if k < p:
                        low = np.inf
                        for j in range(m):
                            low = min(low, acc[j])
                        if low > bound:
                            alive = False
                            break
                if alive:
                    # Ascending j and a strict <: the smallest index wins a tie.
                    for j in range(m):
                        if acc[j] < bound:
                            bound = acc[j]
                            best_idx[i] = r0 + j
                    best[i] = bound
    return best_idx


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


@numba.njit(cache=True, nogil=True)
def _leaf_sum(q: np.ndarray, r: np.ndarray, n_cat: int, part: float, best: float) -> float:  # pragma: no cover
    """``p * D`` of one record given its categorical mismatches, or inf once above ``best``."""
    s = part
    for k in range(n_cat, q.shape[0]):
        a = q[k]
        b = r[k]
        if a >= 0.0 and b >= 0.0:
            s += abs(a - b)
        elif (a < 0.0) != (b < 0.0):
            s += 1.0
        if s > best:
            return np.inf
    return s


@numba.njit(cache=True, nogil=True)
def _consider(  # pragma: no cover - compiled
    q: np.ndarray,
    rows: np.ndarray,
    original: np.ndarray,
    j: int,
    n_cat: int,
    part: float,
    best: float,
    bi: int,
) -> tuple[float, int]:
    """Keep sorted row ``j`` if it beats the best so far; ties go to the smaller original index."""
    s = _leaf_sum(q, rows[j], n_cat, part, best)
    o = original[j]
    if s < best or (s == best and o < bi):
        return s, o
    return best, bi


@numba.njit(cache=True, nogil=True)
def _first_at_least(  # pragma: no cover - compiled
    rows: np.ndarray, col: int, lo: int, hi: int, value: float
) -> int:
    """First row in ``[lo, hi)`` whose ``col`` is >= ``value`` (rows sorted on ``col``)."""
    while lo < hi:
        mid = (lo + hi) // 2
        if rows[mid, col] < value:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True, nogil=True)
def _projection_keys(rows: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Each row's projection key: the sum of its values clipped to [0, 1], a missing value counting 0.5.

    Between two rows the keys differ by at most their Gower sum ``p * D``:
    clipping is 1-Lipschitz into an interval of length 1, and 0.5 is within
    0.5 of every value in [0, 1], while a missing value against a present
    one adds 1 and two missing values add 0 to the sum.
    """
    n, p = rows.shape
    out = np.empty(n, dtype=np.float64)
    for i in range(n):
        key = 0.0
        for k in range(p):
            x = rows[i, k]
            key += 0.5 if x < 0.0 else min(x, 1.0)
        out[i] = key
    return out


@numba.njit(cache=True, nogil=True)
def _projection_scan(  # pragma: no cover - compiled
    queries: np.ndarray,
    rows: np.ndarray,
    keys: np.ndarray,
    original: np.ndarray,
    check_every: int,
    slack: float,
) -> np.ndarray:
    """Closest reference record of every query, scanning the rows sorted by projection key.

    From the query's key outward, the nearer side first: a record's key gap
    is a lower bound of its Gower sum, so once the nearer gap exceeds the
    best sum (plus ``slack`` for the keys' rounding) no record further out
    on either side can win. Each record's sum is built column by column in
    scan order from 0 (the brute force's terms, the same bits) and
    abandoned once above the best, checked every ``check_every`` columns;
    a record whose sum equals the best wins when its index is smaller.
    """
    n_q, p = queries.shape
    n_r = rows.shape[0]
    best_idx = np.empty(n_q, dtype=np.int64)
    query_keys = _projection_keys(queries)
    for i in range(n_q):
        key = query_keys[i]
        best = np.inf
        bi = -1
        hi = np.searchsorted(keys, key)
        lo = hi - 1
        while lo >= 0 or hi < n_r:
            if hi < n_r and (lo < 0 or keys[hi] - key <= key - keys[lo]):
                j = hi
                gap = keys[hi] - key
                hi += 1
            else:
                j = lo
                gap = key - keys[lo]
                lo -= 1
            if gap > best + slack:
                break  # the nearer side's gap: every record left is at least this far
            total = 0.0
            k = 0
            while k < p:
                stop = min(k + check_every, p)
                for kk in range(k, stop):
                    total += min(abs(queries[i, kk] - rows[j, kk]), 1.0)
                k = stop
                if total > best:
                    break
            o = original[j]
            if total < best or (total == best and o < bi):
                best = total
                bi = o
        best_idx[i] = bi
    return best_idx


@numba.njit(cache=True, nogil=True)
def _branch_and_bound(  # pragma: no cover - compiled
    queries: np.ndarray, rows: np.ndarray, original: np.ndarray, run_end: np.ndarray, n_cat: int, stack: int
) -> np.ndarray:
    n_q, p = queries.shape
    n_r = rows.shape[0]
    # The pending nodes, at most ``stack`` at once (see PrefixTree.stack).
    st_lo = np.empty(stack, dtype=np.int64)
    st_hi = np.empty(stack, dtype=np.int64)
    st_depth = np.empty(stack, dtype=np.int64)
    st_part = np.empty(stack, dtype=np.float64)
    best_idx = np.empty(n_q, dtype=np.int64)
    for i in range(n_q):
        q = queries[i]
        best = np.inf
        bi = -1
        top = 1
        st_lo[0], st_hi[0], st_depth[0], st_part[0] = 0, n_r, 0, 0.0
        while top > 0:
            top -= 1
            lo, hi, d, part = st_lo[top], st_hi[top], st_depth[top], st_part[top]
            if part > best:
                continue
            if d == n_cat:
                # A leaf: equal categorical codes, rows sorted on column c.
                if n_cat == p:
                    for j in range(lo, hi):
                        o = original[j]
                        if part < best or (part == best and o < bi):
                            best = part
                            bi = o
                    continue
                c = n_cat
                qa = q[c]
                present = _first_at_least(rows, c, lo, hi, 0.0)
                if qa >= 0.0:
                    # Projection bound: the mismatches plus |qa - r_c| alone grow
                    # monotonically outward from qa's place in the sorted leaf.
                    start = _first_at_least(rows, c, present, hi, qa)
                    for j in range(start, hi):
                        if part + (rows[j, c] - qa) > best:
                            break
                        best, bi = _consider(q, rows, original, j, n_cat, part, best, bi)
                    for j in range(start - 1, present - 1, -1):
                        if part + (qa - rows[j, c]) > best:
                            break
                        best, bi = _consider(q, rows, original, j, n_cat, part, best, bi)
                    # Rows missing column c: a full mismatch there.
                    if part + 1.0 <= best:
                        for j in range(lo, present):
                            best, bi = _consider(q, rows, original, j, n_cat, part, best, bi)
                else:
                    for j in range(lo, present):
                        best, bi = _consider(q, rows, original, j, n_cat, part, best, bi)
                    # Rows with column c present: a full mismatch there.
                    if part + 1.0 <= best:
                        for j in range(present, hi):
                            best, bi = _consider(q, rows, original, j, n_cat, part, best, bi)
                continue
            qa = q[d]
            if part + 1.0 > best:
                # Only the child matching the query can still win: binary search.
                a_lo = _first_at_least(rows, d, lo, hi, qa)
                if a_lo < hi and rows[a_lo, d] == qa:
                    st_lo[top], st_hi[top], st_depth[top], st_part[top] = a_lo, run_end[d, a_lo], d + 1, part
                    top += 1
                continue
            match = -1
            j = lo
            while j < hi:
                e = run_end[d, j]
                if rows[j, d] == qa:
                    match = j
                else:
                    st_lo[top], st_hi[top], st_depth[top], st_part[top] = j, e, d + 1, part + 1.0
                    top += 1
                j = e
            if match >= 0:
                # Pushed last, so walked first: the likeliest place of a close record.
                st_lo[top], st_hi[top], st_depth[top], st_part[top] = match, run_end[d, match], d + 1, part
                top += 1
        best_idx[i] = bi
    return best_idx
