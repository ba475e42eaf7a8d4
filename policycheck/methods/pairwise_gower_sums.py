"""Every query's summed Gower terms ``p D(q, x_j)`` to every point, compiled (the Gower kernel's hot loop).

The density attack (:mod:`policycheck.methods.density_attack`) needs the
``(queries, points)`` matrix of summed Gower terms for its kernel. NumPy built
it a column at a time with five temporaries of that size; this loop builds
the same sums, added column by column in scan order as NumPy added them, so
every sum is the same float. Its own module, so that the attack's width and
scores load without numba.
"""

from __future__ import annotations

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def pairwise_gower_sums(  # pragma: no cover - compiled
    queries: np.ndarray, by_column: np.ndarray, is_category: np.ndarray
) -> np.ndarray:
    """``out[i, j] = sum_k d_k(queries[i, k], by_column[k, j])``, the terms added in column order.

    ``by_column`` is the points transposed (one contiguous row per column).
    A categorical term is 1 where the codes differ; a scaled one is
    ``min(|x - y|, 1)`` where both values are present (>= 0), 1 where one
    is missing (< 0) and 0 where both are.
    """
    n_q, p = queries.shape
    n_x = by_column.shape[1]
    out = np.zeros((n_q, n_x))
    for i in range(n_q):
        row = out[i]
        for k in range(p):
            a = queries[i, k]
            column = by_column[k]
            if is_category[k]:
                for j in range(n_x):
                    row[j] += 1.0 if a != column[j] else 0.0
            elif a >= 0:
                for j in range(n_x):
                    b = column[j]
                    row[j] += min(abs(a - b), 1.0) if b >= 0 else 1.0
            else:
                for j in range(n_x):
                    row[j] += 1.0 if column[j] >= 0 else 0.0
    return out
