"""Multiple rank-based record linkage (paper 000, sec. 3.2).

For each original record ``i`` and each synthetic set ``m`` the attacker
computes, against every synthetic record ``l``,
``d_il^m = Criterion[|o_i1 - s_l1^m|, ..., |o_ip - s_lp^m|]`` and links ``i``
to ``argmin_l d_il^m``. We keep *every* tied minimiser (the paper lists ties
such as "17,4,5").

Ranks. ``o_ij`` and ``s_lj^m`` are the mid-ranks, in the original, of the
original value and of the reverse-mapped synthetic value (a reverse-mapped
value is always an original value). For an attribute without ties these are
the paper's ranks exactly; with ties (e.g. categories, or ages in whole
years) equal values are at rank difference 0 instead of an arbitrary,
row-order-dependent distance. Mid-ranks are multiples of 1/2, so every
criterion value is exact in floating point and ties are found by equality.

Search. The naive algorithm costs ``O(n^2 p)`` per set; we search exactly in
sub-quadratic time:

- ``sum``: an L1 nearest-neighbour search (k-d tree) on rank vectors, then a
  ball query of that radius to collect every tied minimiser;
- ``max``: the same in the Chebyshev (L-infinity) metric;
- ``min``: per attribute, a binary search among the sorted distinct
  synthetic ranks; the minimisers are the synthetic records whose rank is at
  the smallest gap on any attribute reaching it.

Identical rank vectors are searched once (most categorical data is
tie-heavy), and results are kept per group of identical synthetic records,
so even millions of tied candidates cost no more than their groups.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain

import numpy as np
from scipy.spatial import cKDTree

from policycheck.methods.distinct_rows import distinct_rows

#: Criteria of sec. 3.2: sum (noise addition), max (data swapping), min.
CRITERIA = ("sum", "max", "min")

_REDUCE: dict[str, Callable[..., np.ndarray]] = {"sum": np.sum, "max": np.max, "min": np.min}


def mid_ranks(original_codes: np.ndarray, codes: np.ndarray, presorted: bool = False) -> np.ndarray:
    """Mid-rank in the original of each of ``codes`` (values found in the original).

    The mid-rank of a value held by ``c`` original records, ``b`` of which
    hold a smaller value, is ``b + (c + 1) / 2``; missing values (NaN) rank
    above every value, tied among themselves. Pass ``presorted=True`` when
    ``original_codes`` is already sorted.
    """
    ordered = np.asarray(original_codes, dtype=float)
    if not presorted:
        ordered = np.sort(ordered)
    codes = np.asarray(codes, dtype=float)
    below = np.searchsorted(ordered, codes, side="left")
    upto = np.searchsorted(ordered, codes, side="right")
    return (below + upto + 1) / 2.0


def own_mid_ranks(values: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """Mid-rank of each value within ``values`` itself; ``order`` is its stable argsort, if known.

    Equal to ``mid_ranks(values, values)`` (missing values tie at the top),
    computed by one sort instead of two binary searches per value.
    """
    v = np.asarray(values, dtype=float)
    order = np.argsort(v, kind="stable") if order is None else order
    ordered = v[order]
    new = np.ones(v.size, dtype=bool)
    same = (ordered[1:] == ordered[:-1]) | (np.isnan(ordered[1:]) & np.isnan(ordered[:-1]))
    new[1:] = ~same
    start = np.flatnonzero(new)
    count = np.diff(np.append(start, v.size))
    ranks = np.empty(v.size)
    ranks[order] = np.repeat(start + (count + 1) / 2.0, count)
    return ranks


@dataclass(frozen=True)
class Linkage:
    """Every tied minimiser of the criterion, for each original record, against one set.

    Candidates are stored through groups of synthetic records: record ``i``
    is linked to the groups ``group_ids[indptr[q] : indptr[q+1]]`` with
    ``q = query_of_row[i]``, and group ``g`` holds the synthetic records
    ``members[member_ptr[g] : member_ptr[g+1]]``. For ``sum`` and ``max`` a
    group is a set of identical synthetic rank vectors (groups are
    disjoint); for ``min`` it is the synthetic records sharing one rank on
    one attribute (groups may overlap).
    """

    criterion: str
    distance: np.ndarray  # (n,) minimal criterion value of each original record
    query_of_row: np.ndarray  # (n,)
    indptr: np.ndarray  # (queries + 1,)
    group_ids: np.ndarray
    member_ptr: np.ndarray  # (groups + 1,)
    members: np.ndarray

    @property
    def n_rows(self) -> int:
        return int(self.query_of_row.size)

    def candidates(self, i: int) -> np.ndarray:
        """Sorted indices of the synthetic records linked to original record ``i``."""
        q = self.query_of_row[i]
        groups = self.group_ids[self.indptr[q] : self.indptr[q + 1]]
        parts = [self.members[self.member_ptr[g] : self.member_ptr[g + 1]] for g in groups]
        return np.unique(np.concatenate(parts))

    def n_candidates_of(self, i: int) -> int:
        """Number of synthetic records linked to original record ``i``."""
        return int(self.candidates(i).size)

    def reduce(self, values: np.ndarray, ufunc: np.ufunc) -> np.ndarray:
        """``ufunc`` (``np.minimum`` or ``np.maximum``) of ``values`` over each record's candidates."""
        per_group = ufunc.reduceat(np.asarray(values)[self.members], self.member_ptr[:-1])
        per_query = ufunc.reduceat(per_group[self.group_ids], self.indptr[:-1])
        found: np.ndarray = per_query[self.query_of_row]
        return found

    def n_candidates(self, exact: bool = True) -> np.ndarray:
        """Number of synthetic records linked to each original record.

        For ``min`` the groups of one record may overlap (several attributes
        at the smallest gap), so the exact count is a union, one record at a
        time; ``exact=False`` returns the sum of the groups' sizes instead, an
        upper bound that is exact for every record linked through one group,
        and is computed at once. For ``sum`` and ``max`` both are exact.
        """
        sizes = np.diff(self.member_ptr)[self.group_ids]
        per_query = np.add.reduceat(sizes, self.indptr[:-1]) if sizes.size else np.zeros(self.indptr.size - 1, np.int64)
        if self.criterion != "min" or not exact:
            found: np.ndarray = per_query[self.query_of_row]
            return found
        # NOTE: min-criterion groups overlap (one record, several attributes), so count the union.
        return np.array([self.candidates(i).size for i in range(self.n_rows)], dtype=np.int64)


def link(original_ranks: np.ndarray, synthetic_ranks: np.ndarray, criterion: str) -> Linkage:
    """Multiple rank-based record linkage against one synthetic set (sec. 3.2).

    Parameters
    ----------
    original_ranks
        ``O``, shape ``(n, p)``: ranks of the attacker's attributes in the original.
    synthetic_ranks
        ``S^m``, shape ``(n_m, p)``: ranks of the same attributes in set ``m``.
    criterion
        ``"sum"``, ``"max"`` or ``"min"`` of the absolute rank differences.

    Returns
    -------
    Linkage
        ``argmin_l d_il^m`` for every ``i``, ties included.
    """
    o = np.ascontiguousarray(original_ranks, dtype=float)
    s = np.ascontiguousarray(synthetic_ranks, dtype=float)
    if o.ndim != 2 or s.ndim != 2 or o.shape[1] != s.shape[1] or o.shape[1] == 0:
        raise ValueError(f"rank matrices must be (n, p) with the same p >= 1, got {o.shape} and {s.shape}")
    if s.shape[0] == 0:
        raise ValueError("the synthetic set has no records to link to")
    if criterion == "min":
        return _link_min(o, s)
    if criterion in ("sum", "max"):
        return _link_metric(o, s, criterion)
    raise ValueError(f"unknown criterion {criterion!r}: expected one of {CRITERIA}")


def _groups_of(inverse: np.ndarray, n_groups: int) -> tuple[np.ndarray, np.ndarray]:
    """CSR (pointers, members) of the records of each group, members in row order."""
    members = np.argsort(inverse, kind="stable")
    ptr = np.concatenate([[0], np.cumsum(np.bincount(inverse, minlength=n_groups))])
    return ptr, members


def _link_metric(o: np.ndarray, s: np.ndarray, criterion: str) -> Linkage:
    """Sum (L1) or max (Chebyshev) criterion: exact k-d tree search with every tie."""
    uniq_s, s_inv = distinct_rows(s)
    uniq_o, o_inv = distinct_rows(o)
    p = 1 if criterion == "sum" else np.inf
    tree = cKDTree(uniq_s)
    k = min(2, uniq_s.shape[0])
    dist2, nearest2 = tree.query(uniq_o, k=k, p=p)
    dist2, nearest2 = dist2.reshape(-1, k), nearest2.reshape(-1, k)
    best = dist2[:, 0]
    # A record whose second-nearest vector is strictly farther has one minimiser;
    # only the others need a ball query for all their ties.
    tied = np.flatnonzero(dist2[:, 1] == best) if k == 2 else np.empty(0, dtype=np.int64)
    # NOTE: criterion values are multiples of 1/2; a radius a quarter above the
    # minimum catches every tie without floating-point doubt, then equality filters.
    found = tree.query_ball_point(uniq_o[tied], r=best[tied] + 0.25, p=p, return_sorted=False)
    sizes = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
    flat = np.fromiter(chain.from_iterable(found), dtype=np.int64, count=int(sizes.sum()))
    query = np.repeat(tied, sizes)
    diff = np.abs(uniq_o[query] - uniq_s[flat])
    dist = diff.sum(axis=1) if criterion == "sum" else diff.max(axis=1)
    keep = dist == best[query]
    single = np.ones(uniq_o.shape[0], dtype=bool)
    single[tied] = False
    query = np.concatenate([np.flatnonzero(single), query[keep]])
    flat = np.concatenate([nearest2[single, 0], flat[keep]])
    order = np.lexsort((flat, query))
    indptr = np.concatenate([[0], np.cumsum(np.bincount(query, minlength=uniq_o.shape[0]))])
    member_ptr, members = _groups_of(s_inv, uniq_s.shape[0])
    return Linkage(criterion, best[o_inv], o_inv, indptr, flat[order], member_ptr, members)


def _link_min(o: np.ndarray, s: np.ndarray) -> Linkage:
    """Min criterion: the smallest rank gap on any single attribute, by binary search."""
    n, p = o.shape
    gaps = np.empty((n, 2 * p))
    cand = np.empty((n, 2 * p), dtype=np.int64)
    ptr_parts, member_parts, offset = [np.zeros(1, dtype=np.int64)], [], 0
    for j in range(p):
        values, inv = np.unique(s[:, j], return_inverse=True)
        ptr, members = _groups_of(inv.reshape(-1), values.size)
        ptr_parts.append(ptr[1:] + (ptr_parts[-1][-1] if j else 0))
        member_parts.append(members)
        pos = np.searchsorted(values, o[:, j], side="left")
        right = np.minimum(pos, values.size - 1)  # nearest value >= o (or the largest)
        left = np.maximum(pos - 1, 0)  # nearest value < o (or the smallest)
        gaps[:, 2 * j] = np.abs(values[right] - o[:, j])
        gaps[:, 2 * j + 1] = np.abs(values[left] - o[:, j])
        cand[:, 2 * j] = offset + right
        cand[:, 2 * j + 1] = offset + left
        offset += values.size
    best = gaps.min(axis=1)
    hit = gaps == best[:, None]
    # NOTE: left and right can be the same value at the ends; keep each group once.
    hit[:, 1::2] &= cand[:, 1::2] != cand[:, 0::2]
    indptr = np.concatenate([[0], np.cumsum(hit.sum(axis=1))])
    return Linkage(
        "min", best, np.arange(n), indptr, cand[hit], np.concatenate(ptr_parts), np.concatenate(member_parts)
    )


def link_brute_force(
    original_ranks: np.ndarray, synthetic_ranks: np.ndarray, criterion: str
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The paper's ``O(n^2 p)`` algorithm (sec. 3.2), as a reference for tests.

    Returns the minimal criterion value of each original record and the
    sorted indices of all its minimisers.
    """
    o = np.asarray(original_ranks, dtype=float)
    s = np.asarray(synthetic_ranks, dtype=float)
    reduce = _REDUCE[criterion]
    best, linked = np.empty(o.shape[0]), []
    for i in range(o.shape[0]):
        d = reduce(np.abs(s - o[i]), axis=1)
        best[i] = d.min()
        linked.append(np.flatnonzero(d == best[i]))
    return best, linked
