"""The branch and bound over the prefix tree (step 2): a depth-first walk bounded by categorical mismatches.

See the package docstring (:mod:`policycheck.methods.nearest_neighbours`) for the walk and the leaf scan.
"""

from __future__ import annotations

import numba
import numpy as np


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
