"""Records the LP cannot tell apart: one variable per group of equal columns.

Two records with the same quasi-identifiers fall in the same cell of every
query, so their columns of the query matrix ``A`` are equal and the L1 fit
(paper 001, sec. 4.2) sees only their sum: ``A t`` depends on
``s_g = sum of t_i over the group``, ``0 <= s_g <= n_g``. A bootstrap of
300,000 Adult records has about 5,800 distinct columns.

HiGHS's presolve finds these parallel columns itself, but slowly (18 of the
20 s of a 300,000-record solve, growing faster than the records), and its
postsolve splits each group's sum in a fixed way. We merge them before the
solver sees them and split the same way, so the guesses are those the solver
gave the unmerged LP:

- HiGHS (``HPresolve::detectParallelRowsAndCols``) walks the columns in
  order and merges each into the first equal column it saw, which keeps its
  place with bounds ``[0, n_g]``; so does :func:`record_groups`;
- its postsolve (``DuplicateColumn::undo``) undoes the merges last first,
  putting the kept column at its lower bound and the merged one at the rest
  of the sum, up to its bound: the group's last record takes as much of
  ``s_g`` as it can, then the one before it, and so on, which is
  :func:`split_group_sums`, ``t_i = clip(s_g - (records of the group after
  i), 0, 1)``;
- a column with a single non-zero is parallel to its row's slack columns,
  which cost more, and HiGHS fixes such columns instead of merging them
  (its dominated-column cases); those stay unmerged here.

The rules were read in HiGHS's source and checked against it, not assumed:
``tests/methods/reconstruction/test_recon_identical_records.py`` solves LPs
both ways (the demo's four, a 20,000-record bootstrap, a 7-class secret,
query budgets on Adult and RAND HIE, where single-query records abound) and
requires the same guesses and the same values to 1e-9. Beyond those, the
bootstraps of 30,000 and 300,000 Adult records and 48 further LPs (both
synthesizers, three seeds, budgets of 40 to 300 queries, 3- and 4-way) gave
the same guesses. Any equal split of a group's sum is an optimum of the same
LP; only this one is the one HiGHS returned before.
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp


def record_groups(matrix: sp.spmatrix, records: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Group the records whose columns of ``matrix`` are equal (columns of two or more non-zeros).

    Columns are hashed (a sum of a mixing function of their row indices),
    sorted by hash, and compared exactly (rows and values) within a run of
    equal hashes, so a hash collision never merges two different columns.

    Parameters
    ----------
    matrix
        ``(q, c)`` sparse query matrix.
    records
        ``(n,)`` the column of each record: columns may stand for several
        records (the distinct rows of their quasi-identifier codes). By
        default record i is column i.

    Returns
    -------
    columns : numpy.ndarray
        ``(g,)`` the column of each group.
    first : numpy.ndarray
        ``(g,)`` each group's first (lowest) record, ascending: groups in
        the order HiGHS keeps them.
    group : numpy.ndarray
        ``(n,)`` each record's group.
    """
    csc = sp.csc_matrix(matrix)
    csc.sort_indices()
    indptr, indices, values = csc.indptr.astype(np.int64), csc.indices.astype(np.int64), csc.data.astype(float)
    hashes = _column_hashes(indptr, indices)
    # Stable: within a run of equal hashes, columns come in ascending order, the lowest first.
    order = np.argsort(hashes, kind="stable")
    representative = _representatives(indptr, indices, values, hashes, order)
    n_columns = representative.size
    records = np.arange(n_columns) if records is None else np.asarray(records, dtype=np.int64)
    # A record whose column has one non-zero stays alone: HiGHS's presolve treats such a column apart
    # (it is parallel to its row's slacks, which cost more, and is fixed rather than merged), so
    # merging it would change its split.
    alone = np.diff(indptr)[records] <= 1
    key = np.where(alone, n_columns + np.arange(records.size), representative[records])
    _, first, group = np.unique(key, return_index=True, return_inverse=True)
    by_first = np.argsort(first)
    rank = np.empty_like(by_first)
    rank[by_first] = np.arange(by_first.size)
    first = first[by_first]
    return records[first], first, rank[group.ravel()]


def split_group_sums(sums: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Each record's value from its group's sum, as HiGHS's postsolve splits merged columns.

    ``t_i = clip(s_g - k_i, 0, 1)`` with ``k_i`` the records of i's group
    that come after i: the last takes up to 1, the one before it the next
    unit, and so on; the remainder, if any, rests on the first.
    """
    n = group.size
    # Records by group, the last of each group first: k_i is i's rank there.
    order = np.lexsort((-np.arange(n), group))
    starts = np.searchsorted(group[order], group[order])
    after = np.empty(n, dtype=float)
    after[order] = np.arange(n) - starts
    found: np.ndarray = np.clip(sums[group] - after, 0.0, 1.0)
    return found


@numba.njit(cache=True, nogil=True)
def _column_hashes(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:  # pragma: no cover - compiled
    """Per column, the wrapping sum of splitmix64 of its row indices (order-free)."""
    n = indptr.size - 1
    out = np.zeros(n, dtype=np.uint64)
    for c in range(n):
        h = np.uint64(indptr[c + 1] - indptr[c])
        for p in range(indptr[c], indptr[c + 1]):
            z = np.uint64(indices[p]) + np.uint64(0x9E3779B97F4A7C15)
            z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
            z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
            h += z ^ (z >> np.uint64(31))
        out[c] = h
    return out


@numba.njit(cache=True, nogil=True)
def _representatives(  # pragma: no cover - compiled
    indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, hashes: np.ndarray, order: np.ndarray
) -> np.ndarray:
    """The lowest equal column of every column, comparing row lists exactly within a hash run."""
    n = order.size
    representative = np.full(n, -1, dtype=np.int64)
    start = 0
    while start < n:
        end = start + 1
        while end < n and hashes[order[end]] == hashes[order[start]]:
            end += 1
        for a in range(start, end):
            c = order[a]
            if representative[c] >= 0:
                continue
            representative[c] = c
            for b in range(a + 1, end):
                d = order[b]
                if representative[d] < 0 and _same_column(indptr, indices, values, c, d):
                    representative[d] = c
        start = end
    return representative


@numba.njit(cache=True, nogil=True)
def _same_column(  # pragma: no cover - compiled
    indptr: np.ndarray, indices: np.ndarray, values: np.ndarray, c: int, d: int
) -> bool:
    length = indptr[c + 1] - indptr[c]
    if indptr[d + 1] - indptr[d] != length:
        return False
    for k in range(length):
        if indices[indptr[c] + k] != indices[indptr[d] + k] or values[indptr[c] + k] != values[indptr[d] + k]:
            return False
    return True
