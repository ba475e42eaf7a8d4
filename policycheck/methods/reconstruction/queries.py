"""k-way conditional marginal queries involving the secret (paper 001, sec. 4.2).

A k-way query is a conjunction of k-1 quasi-identifier predicates and the
secret predicate, ``a_1 = v_1 and ... and a_{k-1} = v_{k-1} and s = 1``. Its
row of the query matrix ``A`` marks the original records that satisfy the
quasi-identifier part; the secret part is the unknown the attack solves for.

Queries are enumerated from the cells the original records occupy, so a query
matching no original record (an all-zero row) never exists; a query budget
draws a seeded uniform sample of those cells (never "the first N").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb

import numba
import numpy as np
import scipy.sparse as sp

from policycheck.methods.distinct_rows import code_keys
from policycheck.methods.reconstruction.encoding import UNSEEN


@dataclass(frozen=True)
class QuerySet:
    """The queries of one attack, as a sparse matrix over the attacked records.

    Attributes
    ----------
    combos
        Quasi-identifier column indices of each attribute combination.
    combo_of_query, cell_of_query
        For query j: its combination and its mixed-radix cell id within it.
    matrix
        ``A``, ``(q, n)`` CSR, ``A[j, i] = 1`` iff record i is in query j's cell.
    original_counts
        ``c_D(QI_j)``: how many attacked records fall in query j's cell (the
        partially-informed attacker knows them, sec. 4.2).
    enumerated
        Non-empty cells before any sampling.
    """

    combos: tuple[tuple[int, ...], ...]
    combo_of_query: np.ndarray
    cell_of_query: np.ndarray
    matrix: sp.csr_matrix
    original_counts: np.ndarray
    enumerated: int

    @property
    def n_queries(self) -> int:
        return int(self.matrix.shape[0])


def cell_ids(codes: np.ndarray, radix: np.ndarray) -> np.ndarray:
    """Mixed-radix id of each row's cell; -1 where any code is unseen.

    Raises
    ------
    ValueError
        When the columns' cell space does not fit an int64 id (a query order
        too high for columns with this many values).
    """
    if np.sum(np.log2(np.maximum(radix, 1))) >= 63:
        raise ValueError(
            f"a combination of {len(radix)} columns has more cells than an int64 can number; "
            "lower the query order or the number of numeric bins"
        )
    ids = np.zeros(codes.shape[0], dtype=np.int64)
    for j in range(codes.shape[1]):
        ids = ids * radix[j] + codes[:, j]
    ids[(codes == UNSEEN).any(axis=1)] = -1
    return ids


def attribute_combinations(n_columns: int, orders: Sequence[int]) -> list[tuple[int, ...]]:
    """Every set of ``k - 1`` quasi-identifiers for each query order k.

    The paper's main attack uses all 3-way queries, i.e. every pair of
    quasi-identifiers with the secret (sec. 4.2).
    """
    out: list[tuple[int, ...]] = []
    for k in sorted(set(orders)):
        if k < 2:
            raise ValueError(f"query order {k} is below 2: a query needs the secret and one quasi-identifier")
        out.extend(combinations(range(n_columns), k - 1))
    return out


def count_combinations(n_columns: int, orders: Sequence[int]) -> int:
    """How many attribute combinations :func:`attribute_combinations` yields."""
    return sum(comb(n_columns, k - 1) for k in set(orders))


def build_queries(
    codes: np.ndarray,
    radix: np.ndarray,
    orders: Sequence[int],
    n_queries: int | None,
    rng: np.random.Generator,
    weights: np.ndarray | None = None,
) -> QuerySet:
    """Enumerate the non-empty k-way cells of the attacked records, then sample.

    Parameters
    ----------
    codes
        ``(n, d)`` quasi-identifier codes of the attacked records.
    radix
        Codes per quasi-identifier.
    orders
        Query orders k (3 is the paper's attack; 4 its timing runs, sec. 6.7).
    n_queries
        Query budget: a uniform sample without replacement of the non-empty
        cells, or every cell when None or when the budget exceeds them.
    rng
        Source of the sample.
    weights
        How many attacked records each row of ``codes`` stands for (rows may
        be the distinct rows of the records' codes; the matrix then has a
        column per distinct row). One each by default.
    """
    n = codes.shape[0]
    combos = attribute_combinations(codes.shape[1], orders)
    per_combo = []  # (unique cells, record -> cell row, records kept)
    total = 0
    for combo in combos:
        ids = cell_ids(codes[:, combo], radix[list(combo)])
        kept = np.flatnonzero(ids >= 0)
        cells, inverse = np.unique(ids[kept], return_inverse=True)
        per_combo.append((cells, inverse, kept))
        total += cells.size
    if n_queries is not None and n_queries < total:
        chosen = np.sort(rng.choice(total, size=n_queries, replace=False))
    else:
        chosen = np.arange(total)
    # Map every enumerated cell to its row in the sampled matrix (-1: dropped).
    row_of_cell = np.full(total, -1, dtype=np.int64)
    row_of_cell[chosen] = np.arange(chosen.size)

    rows, cols, combo_of_query, cell_of_query = [], [], [], []
    offset = 0
    for c, (cells, inverse, kept) in enumerate(per_combo):
        row = row_of_cell[offset + inverse]
        mask = row >= 0
        rows.append(row[mask])
        cols.append(kept[mask])
        selected = np.flatnonzero(row_of_cell[offset : offset + cells.size] >= 0)
        combo_of_query.append(np.full(selected.size, c, dtype=np.int64))
        cell_of_query.append(cells[selected])
        offset += cells.size
    r = np.concatenate(rows) if rows else np.array([], dtype=np.int64)
    k = np.concatenate(cols) if cols else np.array([], dtype=np.int64)
    matrix = sp.csr_matrix((np.ones(r.size), (r, k)), shape=(chosen.size, n))
    return QuerySet(
        combos=tuple(combos),
        combo_of_query=np.concatenate(combo_of_query) if combo_of_query else np.array([], dtype=np.int64),
        cell_of_query=np.concatenate(cell_of_query) if cell_of_query else np.array([], dtype=np.int64),
        matrix=matrix,
        original_counts=np.asarray(matrix.sum(axis=1)).ravel()
        if weights is None
        else matrix @ np.asarray(weights, float),
        enumerated=int(total),
    )


def answer_queries(
    queries: QuerySet,
    synthetic_codes: np.ndarray,
    synthetic_secret: np.ndarray,
    n_classes: int,
    radix: np.ndarray,
    scaling: str = "conditional",
) -> tuple[np.ndarray, np.ndarray]:
    """Noisy answers ``b~`` of every query for every secret class, from S.

    ``conditional`` (the paper's extension, sec. 4.2): the synthetic share of
    the class within the quasi-identifier cell, times the cell's original
    count, ``c_D(QI_j) * c_S(QI_j, s = c) / c_S(QI_j)``. A cell absent from S
    is left unanswered (its query is dropped) rather than answered 0, which
    would bias every guess towards 0 (notes, pitfall 4).
    ``marginal``: the synthetic count rescaled by ``n / m``; every query is
    answered.

    Returns
    -------
    answers
        ``(q, n_classes)`` float array.
    answered
        ``(q,)`` bool mask of the queries that received an answer.
    """
    q = queries.n_queries
    m = synthetic_codes.shape[0]
    n = queries.matrix.shape[1]
    if q == 0 or m == 0:
        return _scale(queries, np.zeros((q, n_classes)), n, m, scaling)
    # Identical synthetic records answer every query alike: count each once,
    # weighted (a bootstrap of 10^5 records holds at most n distinct ones).
    rows, weight = _distinct_rows(np.column_stack([synthetic_codes, synthetic_secret]))
    keep = rows[:, -1] >= 0
    rows, weight = rows[keep], weight[keep].astype(float)
    # Queries are stored grouped by combination, in combination order.
    bounds = np.searchsorted(queries.combo_of_query, np.arange(len(queries.combos) + 1))
    combo_columns = np.array([j for combo in queries.combos for j in combo], dtype=np.int64)
    combo_start = np.cumsum([0] + [len(combo) for combo in queries.combos]).astype(np.int64)
    counts = np.zeros((q + 1, n_classes))  # a spare last row for records in no cell
    _count_in_cells(
        np.ascontiguousarray(rows[:, :-1].T, dtype=np.int32),
        np.ascontiguousarray(rows[:, -1], dtype=np.int64),
        weight,
        combo_columns,
        combo_start,
        np.asarray(radix, dtype=np.int64),
        np.ascontiguousarray(queries.cell_of_query, dtype=np.int64),
        bounds.astype(np.int64),
        counts,
    )
    return _scale(queries, counts[:-1], n, m, scaling)


def compile_counting() -> None:
    """Compile the counting kernel in this process, or load it from numba's on-disk cache.

    Called before attacks go to a pool, so that workers forked afterwards
    inherit the compiled code and the others find it in the cache, instead
    of every worker compiling it at once.
    """
    codes = np.zeros((1, 1), dtype=np.int64)
    queries = build_queries(codes, np.array([1]), [2], None, np.random.default_rng(0))
    answer_queries(queries, codes, np.zeros(1, dtype=np.int64), 2, np.array([1]))


#: Largest cell space looked up through a direct table; larger ones hash.
_DIRECT_CELLS = 1 << 18


@numba.njit(cache=True, nogil=True)
def _count_in_cells(  # pragma: no cover - compiled
    codes: np.ndarray,
    secret: np.ndarray,
    weight: np.ndarray,
    combo_columns: np.ndarray,
    combo_start: np.ndarray,
    radix: np.ndarray,
    cells: np.ndarray,
    bounds: np.ndarray,
    class_count: np.ndarray,
) -> None:
    """Add each synthetic record's weight to its query cell, per combination and class.

    ``codes`` is ``(d, m)``: one contiguous row per column, so a combination
    streams only its own columns and its records' cell ids (as
    :func:`cell_ids`) come from a loop the compiler vectorises. A cell id then
    finds its query through a direct table over the combination's cell space
    when that is small, else through a small open-addressing hash table (a
    combination holds few sampled cells). A record with an unseen code, or in
    no query cell, counts into a spare last row of ``class_count``.
    """
    n_queries = class_count.shape[0] - 1
    largest = 1
    for c in range(bounds.shape[0] - 1):
        largest = max(largest, bounds[c + 1] - bounds[c])
    size = 2
    while size < 8 * largest:
        size *= 2
    keys = np.empty(size, dtype=np.int64)
    slot_query = np.empty(size, dtype=np.int64)
    direct = np.full(_DIRECT_CELLS, n_queries, dtype=np.int64)
    m = codes.shape[1]
    cell = np.empty(m, dtype=np.int64)
    unseen = np.empty(m, dtype=np.bool_)
    for c in range(bounds.shape[0] - 1):
        lo, hi = bounds[c], bounds[c + 1]
        if lo == hi:
            continue
        cell[:] = 0
        unseen[:] = False
        space = 1
        for k in range(combo_start[c], combo_start[c + 1]):
            j = combo_columns[k]
            column = codes[j]
            base = radix[j]
            space = min(space * base, _DIRECT_CELLS + 1)  # never overflows
            for r in range(m):
                cell[r] = cell[r] * base + column[r]
                unseen[r] |= column[r] < 0
        if space <= _DIRECT_CELLS:
            for q in range(lo, hi):
                direct[cells[q]] = q
            for r in range(m):
                # Branch-free: an unseen record may compute any id, so clamp it.
                found = direct[min(max(cell[r], 0), space - 1)]
                row = n_queries if unseen[r] else found
                class_count[row, secret[r]] += weight[r]
            for q in range(lo, hi):
                direct[cells[q]] = n_queries
            continue
        bits = 1
        while (1 << bits) < 8 * (hi - lo):
            bits += 1
        used = 1 << bits
        keys[:used] = -1
        for q in range(lo, hi):
            h = _slot(cells[q], bits)
            while keys[h] != -1:
                h = (h + 1) & (used - 1)
            keys[h] = cells[q]
            slot_query[h] = q
        for r in range(m):
            if unseen[r]:
                continue
            h = _slot(cell[r], bits)
            while keys[h] != -1:
                if keys[h] == cell[r]:
                    class_count[slot_query[h], secret[r]] += weight[r]
                    break
                h = (h + 1) & (used - 1)


@numba.njit(cache=True, nogil=True)
def _slot(key: int, bits: int) -> np.int64:  # pragma: no cover - compiled
    """Fibonacci hashing: the top ``bits`` bits of ``key`` times 2^64 / golden ratio."""
    mixed = np.uint64(key) * np.uint64(0x9E3779B97F4A7C15)
    return np.int64(mixed >> np.uint64(64 - bits))


def _distinct_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of a small-integer table (codes >= -1) and their counts."""
    key = code_keys(table)
    if key is not None:
        # NOTE: one int64 key per row sorts far faster than np.unique(axis=0).
        _, first, weight = np.unique(key, return_index=True, return_counts=True)
        return table[first], weight
    return np.unique(table, axis=0, return_counts=True)


def _scale(queries: QuerySet, class_count: np.ndarray, n: int, m: int, scaling: str) -> tuple[np.ndarray, np.ndarray]:
    """Turn synthetic counts into answers (see :func:`answer_queries`)."""
    synthetic_count = class_count.sum(axis=1)
    if scaling == "conditional":
        answered = synthetic_count > 0
        share = np.divide(
            class_count, synthetic_count[:, None], out=np.zeros_like(class_count), where=answered[:, None]
        )
        return queries.original_counts[:, None] * share, answered
    if scaling == "marginal":
        return class_count * (n / max(m, 1)), np.ones(class_count.shape[0], dtype=bool)
    raise ValueError(f"unknown scaling {scaling!r}: expected 'conditional' or 'marginal'")
