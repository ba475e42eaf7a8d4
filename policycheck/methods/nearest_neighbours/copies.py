"""Exact copies (step 1): a 64-bit hash of every row, a merge of sorted hashes, and an exact comparison.

A hash collision never makes a false copy: rows whose hashes agree are compared value by value.
"""

from __future__ import annotations

import numba
import numpy as np


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
