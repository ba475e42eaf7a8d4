"""Which records the membership game attacks (Meeus et al., ESORICS 2023: vulnerable records).

Membership risk sits in outliers: a record far from every other record
changes a synthesizer's output most. Each population record gets a
vulnerability score, the mean Gower distance to its 5 nearest other
records (Meeus et al.'s choice; :mod:`policycheck.methods.gower`'s pinned
convention); the ``vulnerable`` targets are the highest-scoring records.
Isolation in distance misses a record whose one value nobody else holds (an
hours-per-week of 49 sits between common values), yet that value is what
synthesizers that keep each column's values leak (Annamalai et al. 2024):
the ``rare`` targets are the records whose rarest value the fewest
population records share (ties: the more isolated first). ``random`` targets
are a seeded draw from the rest (for tree-based synthesizers random records
can be as exposed as outliers), and ``ids`` the records the user names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from policycheck.execution.executor import Executor

#: Neighbours whose mean distance scores a record's isolation (Meeus et al. 2023).
NEIGHBOURS = 5
#: Most records of one person for which a person's own other records are passed over (a search for
#: ``NEIGHBOURS`` + that many neighbours); a larger group scores its records among their own.
MOST_RECORDS_PASSED_OVER = 64


@dataclass(frozen=True)
class TargetChoice:
    """The targets, as rows of the population, with why each was chosen."""

    rows: np.ndarray  # population rows, in report order
    reasons: tuple[str, ...]  # "vulnerable", "random" or "id"
    scores: np.ndarray  # each target's vulnerability score


def vulnerability_scores(
    encoded: np.ndarray, kinds: np.ndarray, executor: Executor | None = None, people: np.ndarray | None = None
) -> np.ndarray:
    """Mean Gower distance of every record to its ``NEIGHBOURS`` nearest other records.

    ``encoded`` holds the population's rows (:meth:`GowerEncoding.encode`).
    The record itself is its own nearest neighbour at distance 0; dropping
    the smallest distance drops it (a duplicate at 0 counts as a neighbour).
    With ``people`` (each record's person) the neighbours are other people's
    records: a man's other years would otherwise be his nearest, and no man
    of a panel would look isolated.
    """
    from policycheck.methods.k_nearest_neighbours import k_nearest

    n = len(encoded)
    group = int(np.bincount(np.unique(people, return_inverse=True)[1]).max()) if people is not None and n else 1
    if people is None or group == 1 or group > MOST_RECORDS_PASSED_OVER:
        k = min(NEIGHBOURS + 1, n)
        if k < 2:
            return np.zeros(n)
        _, distance = k_nearest(encoded, encoded, kinds, k, executor)
        scores: np.ndarray = distance[:, 1:].mean(axis=1)
        return scores
    # Enough neighbours that NEIGHBOURS of them are other people's (or every other person's record).
    k = min(NEIGHBOURS + group, n)
    index, distance = k_nearest(encoded, encoded, kinds, k, executor)
    other = people[index] != people[:, None]
    # The first NEIGHBOURS other people's records of each row, in the search's order (nearest first).
    taken = other & (np.cumsum(other, axis=1) <= NEIGHBOURS)
    counts = taken.sum(axis=1)
    return np.where(counts > 0, (distance * taken).sum(axis=1) / np.maximum(counts, 1), 0.0)


def rarest_value_counts(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per record: how many population records hold its rarest value, and that value's column (frame order).

    A missing value counts as a value of its own; numbers compare exactly.
    """
    counts = np.empty((len(frame), len(frame.columns)), dtype=np.int64)
    for k, column in enumerate(frame.columns):
        # Codes of equal values, missing -1 (a value of its own), counted by code shifted to start at 0:
        # value_counts' groups without its mapping back.
        shifted = frame[column].factorize(use_na_sentinel=True)[0] + 1
        counts[:, k] = np.bincount(shifted)[shifted]
    column = np.argmin(counts, axis=1)
    return counts[np.arange(len(frame)), column], column


def choose_targets(
    scores: np.ndarray,
    vulnerable: int,
    random: int,
    named_rows: np.ndarray,
    rng: np.random.Generator,
    rare: int = 0,
    rarity: np.ndarray | None = None,
    people: np.ndarray | None = None,
) -> TargetChoice:
    """The named rows, the ``vulnerable`` most isolated others, the ``rare`` others with the rarest values, then
    ``random`` others drawn by ``rng``.

    Ties go to the earlier row (for ``rare``: to the more isolated), so the
    choice is a function of the population and the seed only. ``people``
    (a person's code per row, -1 for none) makes the targets distinct people:
    a record whose person is a target already is passed over, since each
    target's coin must decide alone whether its person is in the data.
    """
    named = [int(r) for r in dict.fromkeys(int(r) for r in named_rows)]
    most = _first_untaken((-scores,), named, vulnerable, people)
    rarest: list[int] = []
    if rare and rarity is not None:
        rarest = _first_untaken((-scores, rarity), [*named, *most], rare, people)
    untaken = np.ones(scores.size, dtype=bool)
    untaken[[*named, *most, *rarest]] = False
    if people is not None:
        untaken &= ~_of_people(people, [*named, *most, *rarest])
    rest = np.flatnonzero(untaken)
    drawn: list[int] = []
    if rest.size and random and people is None:
        drawn = [int(r) for r in rng.choice(rest, size=min(random, rest.size), replace=False)]
    elif rest.size and random:
        assert people is not None
        drawn = _one_per_person(rng.permutation(rest), people, set(), random)
    rows = np.array([*named, *most, *rarest, *drawn], dtype=np.int64)
    reasons = ("id",) * len(named) + ("vulnerable",) * len(most) + ("rare",) * len(rarest) + ("random",) * len(drawn)
    return TargetChoice(rows, reasons, scores[rows] if rows.size else np.zeros(0))


def _first_untaken(
    keys: tuple[np.ndarray, ...], taken: list[int], count: int, people: np.ndarray | None = None
) -> list[int]:
    """The first ``count`` rows not in ``taken``, ordered by ``keys`` (the last first, as ``np.lexsort``), then row;
    with ``people``, the first of each person not in ``taken``.

    Only the rows that can be among them are sorted: those whose last key is at most the
    ``count + len(taken)``-th smallest (sorting every population record took 0.4 s at 600,000);
    with ``people`` every row, since a person's other records may push the first ``count`` further.
    """
    primary = keys[-1]
    need = count + len(taken)
    if need == 0 or count == 0:
        return []
    rows = np.arange(primary.size)
    if people is not None:
        order = rows[np.lexsort((rows, *keys))]
        return _one_per_person(order[~np.isin(order, taken)], people, set(people[taken].tolist()), count)
    if need < primary.size:
        cut = np.partition(primary, need - 1)[need - 1]
        rows = np.flatnonzero(~(primary > cut))  # "not above": a NaN cut keeps every row
    order = rows[np.lexsort((rows, *(key[rows] for key in keys)))]
    return [int(r) for r in order[~np.isin(order, taken)][:count]]


def _of_people(people: np.ndarray, rows: list[int]) -> np.ndarray:
    """Whether each row belongs to the person of one of ``rows`` (rows of no person: only themselves)."""
    chosen = people[rows]
    return np.isin(people, chosen[chosen >= 0])


def _one_per_person(order: np.ndarray, people: np.ndarray, taken: set[int], count: int) -> list[int]:
    """The first ``count`` rows of ``order`` whose person is not in ``taken`` and not yet chosen (-1: no person)."""
    out: list[int] = []
    for row in order.tolist():
        person = int(people[row])
        if person >= 0 and person in taken:
            continue
        out.append(row)
        if person >= 0:
            taken.add(person)
        if len(out) == count:
            break
    return out
