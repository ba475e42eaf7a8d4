"""The DCR share under random relabelling of the real records: its exact null distribution.

With no leakage, which real records are training and which are holdout is a random split of the
same people (paper 002, sec. 3: the holdout is drawn from the same population and not used for
training). The synthetic set does not depend on that split, so the DCR share's distribution
under no leakage is its distribution over random relabellings of the real records into sets of
the observed sizes, the synthetic records fixed.

Each synthetic record's closest records in the pool of real ones do not change with the labels:
call them its nearest set. A relabelling makes the record closer to training when its whole
nearest set lands in training, closer to holdout when the whole set lands in holdout, and a tie
otherwise. On coarse data these sets are large (hundreds of identical real records) and shared
by many synthetic records, so a relabelling turns ties into trials and back, and moves whole
groups of records at once: the share's spread is wider than the clusters of
:func:`policycheck.methods.dcr_share.nearest_real_record` imply (up to 38% wider on pac-synth's
releases of RAND HIE, docs/metrics.md). This module draws that spread exactly.

Work is done on distinct rows: identical real records form one profile (a relabelling only
counts how many of its members land in training, a multivariate hypergeometric draw), and
identical synthetic records share one nearest set. It is bounded by the number of distinct
synthetic rows times distinct real rows times columns (:data:`MAX_TERMS`); beyond it the structure is not
built and the caller keeps the clustered interval. That is where it matters least: with many
distinct rows nearest sets are mostly single records, whose spread the clusters give exactly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numba
import numpy as np

from policycheck.methods.distinct_rows import distinct_rows

#: Most Gower terms computed (distinct synthetic x distinct real rows x columns): about 1.5 s on one core.
MAX_TERMS = 500_000_000
#: Most (distinct synthetic row, profile) pairs in the nearest sets: each relabelling reads them all.
MAX_NEAREST = 2_000_000
#: Relabellings drawn; the spread's standard deviation is then known to about 2% of itself.
ROUNDS = 1_000
#: Rows sampled to bound the distinct rows from below before any set is sorted whole: a few
#: thousand first (fine data passes the bound on them, in milliseconds), then more.
_SAMPLE_ROWS = (5_000, 50_000)
#: Counts held at once by the relabellings (block of relabellings x profiles or nearest pairs).
_BLOCK_CELLS = 1_000_000


@dataclass(frozen=True)
class NearestSets:
    """Each distinct synthetic row's nearest set, over profiles of identical real records.

    Attributes
    ----------
    weights : numpy.ndarray
        Synthetic records per distinct synthetic row.
    indptr, profiles : numpy.ndarray
        CSR lists: the profiles at the smallest distance from distinct row ``u`` are
        ``profiles[indptr[u]:indptr[u + 1]]``.
    members : numpy.ndarray
        Real records per profile.
    pool_profile : numpy.ndarray
        The profile of each real record of the pool (training records first).
    """

    weights: np.ndarray
    indptr: np.ndarray
    profiles: np.ndarray
    members: np.ndarray
    pool_profile: np.ndarray


def nearest_sets(
    synthetic: np.ndarray | Iterable[np.ndarray],
    training: np.ndarray,
    holdout: np.ndarray,
    max_terms: int = MAX_TERMS,
    max_nearest: int = MAX_NEAREST,
) -> NearestSets | None:
    """The nearest set of every synthetic record among the real ones (Gower-encoded rows); ``None`` past the bounds.

    The pool of real records is ``training`` then ``holdout``.

    ``synthetic`` is the encoded synthetic set, or its encoded chunks one after another (a streamed
    set: only its distinct rows are kept). ``max_terms`` bounds the Gower terms computed (distinct
    synthetic x distinct real rows x columns), ``max_nearest`` the (distinct row, profile) pairs at
    the smallest distances, which the relabellings read 1,000 times. Sums add the Gower terms in
    the order the search adds them, so "as close" means what it means to the DCR share's ties.
    """
    # The distinct rows of a sample bound the distinct rows from below, cheaply: on fine data the
    # bound is passed at once, before any set is sorted whole (past it, the sets would not be built).
    max_pairs = max_terms // max(training.shape[1], 1)
    whole = synthetic if isinstance(synthetic, np.ndarray) else None
    # A streamed set's chunks are bounded as they come: only the largest pool sample serves it.
    for size in _SAMPLE_ROWS if whole is not None else _SAMPLE_ROWS[-1:]:
        least_pool = len(distinct_rows(np.vstack([_sample(training, size), _sample(holdout, size)]))[0])
        if whole is not None and least_pool * len(distinct_rows(_sample(whole, size))[0]) > max_pairs:
            return None
    if whole is not None:
        synthetic = [whole]
    distinct = _distinct_with_weights(synthetic, max_pairs // max(least_pool, 1))
    if distinct is None:
        return None
    rows_syn, weights = distinct
    rows_pool, pool_profile = distinct_rows(np.vstack([training, holdout]))
    n_syn, n_prof = len(rows_syn), len(rows_pool)
    if n_syn * n_prof > max_pairs:
        return None
    indptr, profiles = _at_smallest_sum(rows_syn, np.ascontiguousarray(rows_pool.T), max_nearest)
    if indptr[-1] < 0:  # more than max_nearest pairs at the smallest distances
        return None
    return NearestSets(
        weights=weights,
        indptr=indptr,
        profiles=profiles,
        members=np.bincount(pool_profile, minlength=n_prof),
        pool_profile=pool_profile,
    )


@numba.njit(cache=True, nogil=True)
def _at_smallest_sum(  # pragma: no cover - compiled
    queries: np.ndarray, by_column: np.ndarray, most: int
) -> tuple[np.ndarray, np.ndarray]:
    """CSR lists of the reference rows at each query's smallest Gower sum; ``indptr[-1] = -1`` past ``most``.

    Each sum adds ``min(|a - b|, 1)`` column by column in scan order, as
    :func:`policycheck.methods.gower.gower_sums` and the search do, so equal
    means equal to the bit.
    """
    n_q, p = queries.shape
    n_r = by_column.shape[1]
    acc = np.empty(n_r, dtype=np.float64)
    indptr = np.zeros(n_q + 1, dtype=np.int64)
    out = np.empty(max(n_q, 16), dtype=np.int64)
    used = 0
    for i in range(n_q):
        for j in range(n_r):
            acc[j] = 0.0
        for k in range(p):
            a = queries[i, k]
            col = by_column[k]
            for j in range(n_r):
                acc[j] += min(abs(a - col[j]), 1.0)
        smallest = np.inf
        for j in range(n_r):
            smallest = min(smallest, acc[j])
        for j in range(n_r):
            if acc[j] == smallest:
                if used == most:
                    indptr[n_q] = -1
                    return indptr, out[:0]
                if used == out.size:
                    grown = np.empty(min(2 * out.size, most), dtype=np.int64)
                    grown[:used] = out[:used]
                    out = grown
                out[used] = j
                used += 1
        indptr[i + 1] = used
    return indptr, out[:used].copy()


def _sample(rows: np.ndarray, size: int) -> np.ndarray:
    """Every k-th row, at most ``size`` of them."""
    return rows[:: max(1, len(rows) // size)][:size]


def _distinct_with_weights(chunks: Iterable[np.ndarray], most: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Distinct rows over ``chunks`` and how many records each stands for; ``None`` once more than ``most``."""
    rows = np.empty((0, 0))
    weights = np.zeros(0, dtype=np.int64)
    for chunk in chunks:
        distinct, inverse = distinct_rows(chunk)
        if len(distinct) > most:
            return None
        if rows.size:
            distinct = np.vstack([rows, distinct])
            counts = np.concatenate([weights, np.bincount(inverse, minlength=len(distinct) - len(rows))])
            distinct, inverse = distinct_rows(distinct)
            counts = np.bincount(inverse, weights=counts).astype(np.int64)
        else:
            counts = np.bincount(inverse, minlength=len(distinct))
        if len(distinct) > most:
            return None
        rows, weights = distinct, counts
    return rows, weights


def share_given_counts(sets: NearestSets, in_training: np.ndarray) -> np.ndarray:
    """The DCR share among untied records, given each profile's members in training (one row per labelling).

    A synthetic record is closer to training when every profile of its nearest set lies wholly in
    training, closer to holdout when every one lies wholly in holdout, and tied otherwise.
    """
    counts = np.atleast_2d(in_training)
    whole_training = (counts == sets.members)[:, sets.profiles]
    whole_holdout = (counts == 0)[:, sets.profiles]
    starts = sets.indptr[:-1]
    closer = np.logical_and.reduceat(whole_training, starts, axis=1) @ sets.weights
    farther = np.logical_and.reduceat(whole_holdout, starts, axis=1) @ sets.weights
    untied = closer + farther
    return np.where(untied > 0, closer / np.maximum(untied, 1), 0.5)


def observed_counts(sets: NearestSets, n_training: int) -> np.ndarray:
    """Each profile's members in training as the release labels them (the pool's first ``n_training`` records)."""
    training = (np.arange(len(sets.pool_profile)) < n_training).astype(np.int64)
    return np.bincount(sets.pool_profile, weights=training, minlength=len(sets.members)).astype(np.int64)


def relabelled_shares(
    sets: NearestSets,
    n_training: int,
    rng: np.random.Generator,
    rounds: int = ROUNDS,
    people: np.ndarray | None = None,
) -> np.ndarray:
    """The DCR share under ``rounds`` random relabellings of the pool into ``n_training`` training records.

    Each relabelling is a uniform draw of which real records are training: per profile, how many
    of its members are, jointly a multivariate hypergeometric draw. With ``people`` (each pool
    record's person) people are relabelled, not records: a person's records land in one set
    together, as a split by person puts them, with as many training people as the pool's first
    ``n_training`` records hold. On Ecdat's Males panel (181 men a set, eight records each)
    the share's spread over splits by person is 0.022-0.023, over splits by record 0.017.
    """
    if people is not None:
        return _relabelled_by_person(sets, n_training, rng, rounds, people)
    shares = []
    block = max(1, _BLOCK_CELLS // max(len(sets.profiles), len(sets.members), 1))
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        counts = rng.multivariate_hypergeometric(sets.members, n_training, size=size, method="marginals")
        shares.append(share_given_counts(sets, counts))
    return np.concatenate(shares)


def _relabelled_by_person(
    sets: NearestSets, n_training: int, rng: np.random.Generator, rounds: int, people: np.ndarray
) -> np.ndarray:
    """:func:`relabelled_shares` relabelling people: each round draws which people are training."""
    persons, person_of = np.unique(people, return_inverse=True)
    in_training = np.unique(person_of[:n_training]).size
    # Each profile's members in training, summed over the pool's records sorted by profile.
    order = np.argsort(sets.pool_profile, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(sets.pool_profile[order]) != 0])
    member_person = person_of[order]
    shares = []
    block = max(1, _BLOCK_CELLS // max(len(people), len(sets.profiles), 1))
    for start in range(0, rounds, block):
        size = min(block, rounds - start)
        chosen = np.argsort(rng.random((size, persons.size)), axis=1)[:, :in_training]
        training = np.zeros((size, persons.size), dtype=np.int64)
        np.put_along_axis(training, chosen, 1, axis=1)
        counts = np.add.reduceat(training[:, member_person], starts, axis=1)
        shares.append(share_given_counts(sets, counts))
    return np.concatenate(shares)
