"""Exact k nearest records under Gower's distance.

The attacks of the Article 29 criteria (linkability with ``k`` neighbours)
ask for the ``k`` closest synthetic records of a few hundred targets; the
membership game scores every population record's isolation by its ``k``
nearest others. For ``k = 1`` the package's branch-and-bound search
(:mod:`.nearest_neighbours`) answers. For ``k > 1`` the reference records
are grouped by their categorical values, and each query visits a group only
while the group's categorical mismatches alone do not exceed its current
``k``-th best sum; in a group it abandons a record as soon as the partial
sum exceeds it. A categorical term is exactly 0 or 1, so a group's mismatch
count is the partial sum of every record in it after the categorical
columns, bit for bit. Groups come in order of that count: the query's own
group, then the groups one value away (a binary search per categorical
column, :func:`one_away_orders`), and only while the ``k``-th best is 2 or
more, every other group. Within a group the records are sorted by the first
scaled column (the pivot), whose term is the first added after the counts:
walking out from the query's value, the scan stops where that term alone
takes the sum past the ``k``-th best. The per-feature terms are those of
:func:`policycheck.methods.gower.gower_sums`, added in the same order, so
the distances are the canonical ones. Ties go to the smaller reference index:
the answer is the ``k`` smallest (distance, index) pairs, as a full sort
gives; the order records are visited in changes only how early they are
abandoned.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numba
import numpy as np

from policycheck.core.threads import side_by_side
from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.methods.distinct_rows import code_keys
from policycheck.methods.gower import CATEGORY
from policycheck.methods.nearest_neighbours import SearchJob, closest_records, gower_sums_at

#: Queries of the pilot task, which sizes the rest, and the fewest in any task.
CHUNK = 256
#: The most queries in one task: fewer, larger tasks spare this process a submit and a result each
#: (at 600,000 queries, tasks of 256 kept it so busy that two workers scanned no faster than one),
#: yet every worker gets several to even out their ends.
TASK_QUERIES = 4096


def k_nearest(
    queries: np.ndarray,
    reference: np.ndarray,
    kinds: np.ndarray,
    k: int,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Indices and Gower distances of the ``k`` closest reference rows of every query.

    Parameters
    ----------
    queries, reference : numpy.ndarray
        Encoded rows (``GowerEncoding.encode``), categorical columns first.
    kinds : numpy.ndarray
        Kind code of every encoded column.
    k : int
        Neighbours per query; at most the number of reference rows.
    executor : Executor, optional
        Runs the query chunks; serial by default.

    Returns
    -------
    (index, distance) : two ``(n_queries, k)`` arrays, closest first.
    """
    executor = executor or SerialExecutor()
    k = min(k, reference.shape[0])
    if k < 1:
        raise ValueError("k nearest neighbours need k >= 1 and a non-empty reference set")
    if k == 1:
        (found,) = closest_records([SearchJob(queries, reference)], kinds, executor, progress)
        return found.index[:, None], found.distance[:, None]
    kinds = np.ascontiguousarray(kinds, dtype=np.int8)
    groups = category_groups(reference, kinds)
    one_away = one_away_orders(groups[2])
    rest = max(len(queries) - CHUNK, 0)
    size = max(CHUNK, min(TASK_QUERIES, -(-rest // (4 * executor.workers))))
    starts = [0, *range(CHUNK, len(queries), size)] if len(queries) else []
    ends = [*starts[1:], len(queries)]
    tasks: list[ScanTask] = [
        (np.ascontiguousarray(queries[s:e]), reference, kinds, k, *groups, one_away)
        for s, e in zip(starts, ends, strict=True)
    ]
    parts = []
    if tasks:
        # A pilot chunk here sizes the rest (what the groups prune depends on the data), once the
        # compiled scan is loaded by a one-query call; its answer is kept.
        _scan_chunk((tasks[0][0][:1], *tasks[0][1:]))
        started = time.perf_counter()
        parts.append(_scan_chunk(tasks[0]))
        cost = (time.perf_counter() - started) * rest / min(CHUNK, len(queries))  # per query, for the rest
        if progress:
            progress(1, len(tasks))
        shifted = (lambda done, total: progress(done + 1, total + 1)) if progress else None
        if executor.workers_for(cost) > 1:
            # The pilot loaded the compiled scan here: this process may scan while the workers start.
            parts += executor.map(_scan_chunk, tasks[1:], shifted, cost=cost, ready_here=True)
        else:
            # A scan too small to pay for the workers runs here (each worker's first call would load the
            # compiled scan anew), on this process's threads: the scan holds no GIL.
            parts += side_by_side(_scan_chunk, tasks[1:], executor.threads)
    index = np.concatenate(parts) if parts else np.empty((0, k), dtype=np.int64)
    p = queries.shape[1]
    distance = np.empty(index.shape, dtype=np.float64)

    def canonical(j: int) -> None:
        # The canonical sums, compiled (no GIL held), so distances equal those of every other search:
        # NumPy's column-at-a-time formula made eight temporaries of every column (1.8 s at 600,000).
        distance[:, j] = gower_sums_at(queries, reference, np.ascontiguousarray(index[:, j]), kinds) / p

    side_by_side(canonical, list(range(k)), executor.threads)
    return index, distance


def category_groups(reference: np.ndarray, kinds: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The reference rows grouped by their leading categorical columns' values.

    Returns ``(order, starts, keys)``: row indices sorted by those values
    (lexicographically), each group's rows by the first scaled column's value
    (the *pivot*: missing values, which the encoding makes negative, first;
    ties in index order); where each group starts in ``order`` (and the end);
    and each group's values. Without a leading categorical column, one group
    holds every row.
    """
    n_cat = int(np.argmin(kinds == CATEGORY)) if not np.all(kinds == CATEGORY) else len(kinds)
    n = reference.shape[0]
    # Sort keys, the last one first (np.lexsort): the categorical values, then the pivot. Stable: ties keep index order.
    sort_by = reference[:, : min(n_cat + 1, reference.shape[1])].T[::-1]
    if n_cat == 0 or n == 0:
        order = np.lexsort(sort_by).astype(np.int64) if len(sort_by) else np.arange(n, dtype=np.int64)
        return order, np.array([0, n], dtype=np.int64), np.empty((1, 0), dtype=np.float64)
    group = code_keys(reference[:, :n_cat])
    if group is None:  # too many value combinations for one integer: every column a key
        order = np.lexsort(sort_by).astype(np.int64)
        ordered = reference[order, :n_cat]
        change = np.flatnonzero(np.any(ordered[1:] != ordered[:-1], axis=1)) + 1
    else:  # one integer key for the categorical values (sorting by it is sorting by them), then the pivot
        keys = (reference[:, n_cat], group) if n_cat < reference.shape[1] else (group,)
        order = np.lexsort(keys).astype(np.int64)
        ordered = group[order]
        change = np.flatnonzero(ordered[1:] != ordered[:-1]) + 1
    starts = np.concatenate([[0], change, [n]]).astype(np.int64)
    return order, starts, np.ascontiguousarray(reference[order[starts[:-1]], :n_cat])


def one_away_orders(keys: np.ndarray) -> np.ndarray:
    """Per categorical column ``c``, the groups sorted by their other columns' values: ``(n_cat, n_groups)``.

    The groups one value away from a query in column ``c`` (or its own group) are
    then one run of row ``c``, found by binary search (:func:`_one_away_run`).
    Stable sorts: a run's groups keep their order in ``keys``.
    """
    n_groups, n_cat = keys.shape
    orders = np.empty((n_cat, n_groups), dtype=np.int64)
    for c in range(n_cat):
        others = np.delete(keys, c, axis=1)
        orders[c] = np.lexsort(others.T[::-1]) if others.shape[1] else np.arange(n_groups)
    return orders


#: One executor task: queries, reference, kinds, k, the reference's groups (:func:`category_groups`)
#: and their orders one value away (:func:`one_away_orders`).
ScanTask = tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def _scan_chunk(task: ScanTask) -> np.ndarray:
    queries, reference, kinds, k, order, starts, keys, one_away = task
    found: np.ndarray = _top_k(queries, reference, kinds == CATEGORY, int(k), order, starts, keys, one_away)
    return found


@numba.njit(cache=True, nogil=True)
def _top_k(  # pragma: no cover - compiled
    queries: np.ndarray,
    reference: np.ndarray,
    is_category: np.ndarray,
    k: int,
    order: np.ndarray,
    starts: np.ndarray,
    keys: np.ndarray,
    one_away: np.ndarray,
) -> np.ndarray:
    """The ``k`` smallest (Gower sum, index) pairs of every query, group by group (module docstring).

    Each group is offered once, so the buffer never holds a row twice; the
    order groups come in changes which rows are abandoned early, not the answer.
    """
    n_q = queries.shape[0]
    n_r = reference.shape[0]
    n_groups, n_cat = keys.shape
    out = np.empty((n_q, k), dtype=np.int64)
    best_d = np.empty(k, dtype=np.float64)
    best_i = np.empty(k, dtype=np.int64)
    for i in range(n_q):
        q = queries[i]
        for j in range(k):
            best_d[j] = np.inf
            best_i[j] = n_r
        own = _own_group(keys, q)
        if own >= 0:
            _scan_group(q, reference, is_category, order, starts[own], starts[own + 1], n_cat, 0.0, best_d, best_i)
        # Count 1: the groups that differ from the query in column c alone, for every c.
        for c in range(n_cat):
            if best_d[k - 1] < 1.0:
                break
            lo, hi = _one_away_run(keys, one_away[c], q, c)
            for t in range(lo, hi):
                g = one_away[c, t]
                if g != own and best_d[k - 1] >= 1.0:
                    _scan_group(q, reference, is_category, order, starts[g], starts[g + 1], n_cat, 1.0, best_d, best_i)
        # Count 2 or more, only while the k-th best is that far.
        if best_d[k - 1] < 2.0:
            for j in range(k):
                out[i, j] = best_i[j]
            continue
        for g in range(n_groups):
            worst = best_d[k - 1]
            if worst < 2.0:
                break
            m = 0.0
            for c in range(n_cat):
                if keys[g, c] != q[c]:
                    m += 1.0
                    if m > worst:
                        break
            if m < 2.0 or m > worst:
                continue  # offered above, or too far
            _scan_group(q, reference, is_category, order, starts[g], starts[g + 1], n_cat, m, best_d, best_i)
        for j in range(k):
            out[i, j] = best_i[j]
    return out


@numba.njit(cache=True, nogil=True)
def _own_group(keys: np.ndarray, q: np.ndarray) -> int:  # pragma: no cover - compiled
    """The group whose categorical values are the query's (binary search of the sorted keys), else -1."""
    lo, hi = 0, int(keys.shape[0])
    n_cat = keys.shape[1]
    while lo < hi:
        mid = (lo + hi) // 2
        cmp = 0
        for c in range(n_cat):
            if keys[mid, c] < q[c]:
                cmp = -1
                break
            if keys[mid, c] > q[c]:
                cmp = 1
                break
        if cmp == 0:
            return mid
        if cmp < 0:
            lo = mid + 1
        else:
            hi = mid
    return -1


@numba.njit(cache=True, nogil=True)
def _one_away_run(
    keys: np.ndarray, by_others: np.ndarray, q: np.ndarray, c: int
) -> tuple[int, int]:  # pragma: no cover - compiled
    """The run ``[lo, hi)`` of ``by_others`` (groups sorted without column ``c``) whose other values are the query's."""
    n_cat = keys.shape[1]
    lo, hi = 0, by_others.size
    while lo < hi:  # the first group not below the query
        mid = (lo + hi) // 2
        if _compare_without(keys, by_others[mid], q, c, n_cat) < 0:
            lo = mid + 1
        else:
            hi = mid
    first = lo
    hi = by_others.size
    while lo < hi:  # the first group above it
        mid = (lo + hi) // 2
        if _compare_without(keys, by_others[mid], q, c, n_cat) <= 0:
            lo = mid + 1
        else:
            hi = mid
    return first, lo


@numba.njit(cache=True, nogil=True)
def _compare_without(
    keys: np.ndarray, g: int, q: np.ndarray, skip: int, n_cat: int
) -> int:  # pragma: no cover - compiled
    """-1, 0 or 1: group ``g``'s categorical values against the query's, column ``skip`` left out."""
    for c in range(n_cat):
        if c == skip:
            continue
        if keys[g, c] < q[c]:
            return -1
        if keys[g, c] > q[c]:
            return 1
    return 0


@numba.njit(cache=True, nogil=True)
def _scan_group(  # pragma: no cover - compiled
    q: np.ndarray,
    reference: np.ndarray,
    is_category: np.ndarray,
    order: np.ndarray,
    lo: int,
    hi: int,
    n_cat: int,
    mismatches: float,
    best_d: np.ndarray,
    best_i: np.ndarray,
) -> None:
    """Offer a group's rows to the sorted buffer, each from the group's categorical partial sum.

    The rows are sorted by the pivot (:func:`category_groups`), the first term
    added after the categorical ones. Walking out from the query's pivot
    value, that term only grows, and the sum it starts, ``mismatches +
    |a - b|`` as it is added, bounds the row's whole sum from below (floats
    of one sign add monotonically): once it exceeds the ``k``-th best, every
    row further out does too. Rows without a pivot value, or a query without
    one, are offered one by one.
    """
    k = best_d.size
    if n_cat >= q.shape[0] or q[n_cat] < 0.0:
        for t in range(lo, hi):
            _offer(q, reference, is_category, order[t], n_cat, mismatches, best_d, best_i)
        return
    a = q[n_cat]
    present = lo  # the first row with a pivot value (missing ones sort first)
    top = hi
    while present < top:
        mid = (present + top) // 2
        if reference[order[mid], n_cat] < 0.0:
            present = mid + 1
        else:
            top = mid
    for t in range(lo, present):
        _offer(q, reference, is_category, order[t], n_cat, mismatches, best_d, best_i)
    split = present  # the first row whose pivot value is not below the query's
    top = hi
    while split < top:
        mid = (split + top) // 2
        if reference[order[mid], n_cat] < a:
            split = mid + 1
        else:
            top = mid
    for t in range(split, hi):
        if mismatches + abs(a - reference[order[t], n_cat]) > best_d[k - 1]:
            break
        _offer(q, reference, is_category, order[t], n_cat, mismatches, best_d, best_i)
    for t in range(split - 1, present - 1, -1):
        if mismatches + abs(a - reference[order[t], n_cat]) > best_d[k - 1]:
            break
        _offer(q, reference, is_category, order[t], n_cat, mismatches, best_d, best_i)


@numba.njit(cache=True, nogil=True)
def _offer(  # pragma: no cover - compiled
    q: np.ndarray,
    reference: np.ndarray,
    is_category: np.ndarray,
    r: int,
    n_cat: int,
    mismatches: float,
    best_d: np.ndarray,
    best_i: np.ndarray,
) -> None:
    """Insert row ``r`` in the sorted buffer if its (sum, index) is among the ``k`` smallest; its terms added
    in column order from ``mismatches``, abandoned once they exceed the ``k``-th best."""
    k = best_d.size
    p = q.shape[0]
    row = reference[r]
    s = mismatches
    worst = best_d[k - 1]
    for c in range(n_cat, p):
        a = q[c]
        b = row[c]
        if is_category[c]:
            if a != b:
                s += 1.0
        elif a >= 0.0 and b >= 0.0:
            s += abs(a - b)
        elif (a < 0.0) != (b < 0.0):
            s += 1.0
        if s > worst:
            return
    if s == worst and r > best_i[k - 1]:
        return
    # Insert (s, r) in (distance, index) order: rows do not come in index order.
    j = k - 1
    while j > 0 and (best_d[j - 1] > s or (best_d[j - 1] == s and best_i[j - 1] > r)):
        best_d[j] = best_d[j - 1]
        best_i[j] = best_i[j - 1]
        j -= 1
    best_d[j] = s
    best_i[j] = r
