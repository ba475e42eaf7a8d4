"""The exact DCR search of several jobs: exact copies, the pilot's choice of search, chunks on the executor.

Steps 1-3 of the package docstring (:mod:`policycheck.methods.nearest_neighbours`); paper 002, sec. 3 and 5.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numba
import numpy as np

from policycheck.core.threads import side_by_side as _side_by_side
from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.methods.gower import CATEGORY
from policycheck.methods.nearest_neighbours.branch_and_bound import _branch_and_bound
from policycheck.methods.nearest_neighbours.brute_force import _brute_force
from policycheck.methods.nearest_neighbours.copies import _copies_by_merge, _CopyFinder, _row_hashes
from policycheck.methods.nearest_neighbours.prefix_tree import (
    _counting_sort,
    _gather,
    _most_children,
    _walk_keys,
    build_prefix_tree,
)
from policycheck.methods.nearest_neighbours.projection import _projection_keys, _projection_scan
from policycheck.methods.nearest_neighbours.reference import (
    BLOCK_QUERIES,
    BLOCK_REFERENCE,
    BRUTE_FORCE,
    CHECK_EVERY,
    PROJECTION,
    TREE,
    _Reference,
    search_chunk,
)

#: Queries per task at most; small enough for progress, large enough to amortise a task.
MAX_CHUNK = 8192

#: Rows of all matrices of a call from which its preparation runs on several threads.
THREADS_FROM_ROWS = 50_000

#: Queries of a job timed with both searches to choose between them.
PILOT_QUERIES = 16

#: Reference records the pilot times the brute force on beside a branch and bound, its time then scaled
#: to the whole reference: the brute force's time per query grows with the records it scans, and the
#: column-major copy of a whole reference, which it most often does not search, is not made for the pilot.
PILOT_REFERENCE = 32_768


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
    threads = executor.threads if sum(x.shape[0] for x in matrices) >= THREADS_FROM_ROWS else 1
    _side_by_side(copies.sort, matrices, threads)
    index = _side_by_side(lambda job: copies.find(job.queries, job.reference), jobs, threads)
    searches: dict[int, _Reference] = {}
    for job, found in zip(jobs, index, strict=True):
        if (found < 0).any() and id(job.reference) not in searches:
            searches[id(job.reference)] = _Reference(job.reference, n_cat, executor.empty)
    # Each search structure is a separate item, the trees (the longer builds) first, so two
    # threads share three references' work evenly instead of one building two trees. The brute
    # force's copy of a reference is made here for the pilots that time it on the whole reference
    # (see _pilot), else only if a job chooses it.
    builds = [s.pruned_build() for s in searches.values()]
    builds += [s.by_column for s in searches.values() if not _samples_brute_force(s)]
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
        lambda j: gower_sums_at(jobs[j].queries, jobs[j].reference, index[j], kinds), list(range(len(jobs))), threads
    )
    return [
        Neighbours(distance=total / job.queries.shape[1], index=idx, method=method)
        for job, idx, total, (_, method, _) in zip(jobs, index, sums, plans, strict=True)
    ]


@numba.njit(cache=True, nogil=True)
def gower_sums_at(  # pragma: no cover - compiled
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


def _samples_brute_force(search: _Reference) -> bool:
    """Whether the pilot times the brute force on :data:`PILOT_REFERENCE` records of ``search`` only.

    Beside a branch and bound on a larger reference: the brute force wins there only where the tree
    stops pruning, and then by far. Beside a projection scan, which the brute force often beats
    by little (continuous columns), both are timed on the whole reference.
    """
    return search.pruned == TREE and search.reference.shape[0] > PILOT_REFERENCE


def _pilot(search: _Reference, queries: np.ndarray, pilot: np.ndarray, found: np.ndarray) -> tuple[str, float]:
    """Time the brute force and the pruned search on the ``pilot`` queries; store their answers in ``found``.

    The pruned search is the branch and bound, or, without categorical
    columns, the projection scan. Beside a branch and bound the brute force
    may be timed on the first :data:`PILOT_REFERENCE` reference records, its
    time scaled to the whole reference (:func:`_samples_brute_force`). Times
    are this thread's CPU time, so a busy machine that deschedules the
    process does not tilt the choice. The pruned search first meets a
    quarter of the pilot: where it does not prune, one of its queries can
    cost as much as the brute force's whole pilot, so it stops there when
    already four times slower. Both searches' arrays are built before
    (outside the timing).
    """
    pruned = search.pruned
    sampled = _samples_brute_force(search)
    if sampled:
        n_reference = search.reference.shape[0]
        by_column = np.ascontiguousarray(search.reference[:PILOT_REFERENCE].T)
        chunk = np.ascontiguousarray(queries[pilot])
        t0 = time.thread_time()
        _brute_force(chunk, by_column, BLOCK_QUERIES, BLOCK_REFERENCE, CHECK_EVERY)
        brute = (time.thread_time() - t0) / pilot.size * (n_reference / PILOT_REFERENCE)
    else:
        t0 = time.thread_time()
        found[pilot] = search_chunk(search.task(BRUTE_FORCE, queries, pilot))
        brute = (time.thread_time() - t0) / pilot.size
    head, tail = pilot[: max(1, pilot.size // 4)], pilot[max(1, pilot.size // 4) :]
    t0 = time.thread_time()
    answers = [search_chunk(search.task(pruned, queries, head))]
    tree = (time.thread_time() - t0) / head.size
    if tree <= 4 * brute and tail.size:
        t0 = time.thread_time()
        answers.append(search_chunk(search.task(pruned, queries, tail)))
        tree = (tree * head.size + time.thread_time() - t0) / pilot.size
    if sampled:  # the answers of the pilot: the pruned search's, or the brute force's where that stopped early
        whole = len(answers) == 2 or not tail.size
        found[pilot] = np.concatenate(answers) if whole else search_chunk(search.task(BRUTE_FORCE, queries, pilot))
    return (pruned, tree) if tree <= brute else (BRUTE_FORCE, brute)


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
    _gather(frozen_rows, np.zeros(1, np.int64), np.zeros(2, np.int64), np.empty((1, 2)))  # a chunk of shared queries
    _most_children(np.ones(1, np.bool_), np.ones(1, np.bool_))
    _counting_sort(np.zeros(1, np.int64), np.zeros(1, np.int64), 1)
    gower_sums_at(rows, rows, np.zeros(1, np.int64), np.zeros(2, np.int8))
