"""Linkability (Giomi et al. 2023, sec. 3.2).

The attacker holds two data sets about the same people with different
columns (``aux_columns[0]`` and ``aux_columns[1]``) and uses the synthetic
data to join them: a target's two halves are linked when their ``k``
closest synthetic records (on each half's columns) share a record. As in
anonymeter 1.1: ``n_attacks`` targets drawn from the original records (the
control attack draws them from the holdout); the baseline attacker picks
``k`` synthetic records at random for each half.

Where we differ from anonymeter 1.1, on purpose:

- distances are the package's Gower distance (:mod:`policycheck.methods.gower`:
  mean over columns, ranges over every set of the release, two missing
  values match) where anonymeter sums over columns with ranges over the
  synthetic set and the targets, and counts two missing values as a
  mismatch; the search is exact;
- synthetic records at equal distance are ordered at random, independently
  for the two halves (anonymeter's ``argsort`` orders them arbitrarily); a
  fixed order would link two halves merely because both pick the first of
  their tied records;
- every random choice is seeded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from policycheck.execution.executor import Executor
from policycheck.methods.gower import GowerEncoding
from policycheck.methods.k_nearest_neighbours import k_nearest
from policycheck.methods.wp29.rates import AttackCounts


@dataclass(frozen=True)
class Linkability:
    counts: AttackCounts
    target_rows: np.ndarray  # original rows attacked
    linked_rows: np.ndarray  # those whose halves were linked


def neighbours_in_random_tie_order(
    queries: np.ndarray, reference: np.ndarray, kinds: np.ndarray, k: int, rng: np.random.Generator, executor: Executor
) -> np.ndarray:
    """Rows of the ``k`` closest reference records per query, equal distances in a seeded random order."""
    order = rng.permutation(reference.shape[0])
    index, _ = k_nearest(queries, np.ascontiguousarray(reference[order]), kinds, k, executor)
    found: np.ndarray = order[index]
    return found


def count_links(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Whether each target's two neighbour lists share a synthetic record."""
    return np.array([bool(set(a) & set(b)) for a, b in zip(first, second, strict=True)], dtype=bool)


def linkability(
    original: Sequence[np.ndarray],
    control: Sequence[np.ndarray] | None,
    synthetic: Sequence[np.ndarray],
    encodings: tuple[GowerEncoding, GowerEncoding],
    n_attacks: int,
    n_neighbors: int,
    rng: np.random.Generator,
    executor: Executor,
) -> Linkability:
    """Main, baseline and control linkability attacks.

    ``original``, ``control`` and ``synthetic`` hold, per half, the records
    encoded on that half's columns: arrays of shape ``(2, n, p)`` are not
    possible with different widths, so each argument is a pair of matrices.
    """
    n_syn = synthetic[0].shape[0]
    k = min(n_neighbors, n_syn)

    def attack(records: Sequence[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
        rows = np.sort(rng.choice(records[0].shape[0], size=n, replace=False))
        halves = [
            neighbours_in_random_tie_order(
                np.ascontiguousarray(records[h][rows]), synthetic[h], encodings[h].kinds, k, rng, executor
            )
            for h in (0, 1)
        ]
        return rows, count_links(*halves)

    n = min(n_attacks, original[0].shape[0], *(() if control is None else (control[0].shape[0],)))
    rows, linked = attack(original, n)
    random_halves = [np.array([rng.choice(n_syn, size=k, replace=False) for _ in range(n)]) for _ in (0, 1)]
    n_baseline = int(np.sum(count_links(*random_halves)))
    n_control = None
    if control is not None:
        _, control_linked = attack(control, n)
        n_control = float(np.sum(control_linked))
    counts = AttackCounts(n, int(np.sum(linked)), n_baseline, n_control, n)
    return Linkability(counts, rows, rows[linked])
