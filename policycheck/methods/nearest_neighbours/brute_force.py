"""The blocked brute force (step 2): every reference record, in cache-sized blocks of records and queries."""

from __future__ import annotations

import numba
import numpy as np


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
