"""The projection scan (step 2, no categorical column): records sorted by the sum of their clipped values."""

from __future__ import annotations

import numba
import numpy as np


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
