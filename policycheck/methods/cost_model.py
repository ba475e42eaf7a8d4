"""Estimated time and memory of a plan's steps, from the release's sizes and column kinds.

``policycheck plan -r release.yaml`` prints these before anything runs, so a
user sees that a check of 10^6 rows needs minutes and gigabytes before
starting it. The formulas are deliberately simple and calibrated against
the bench figures (``bench/run.py``, 2 cores); they are estimates of the
order of magnitude, not promises. Pure arithmetic: importing this module
loads no numerical library (``plan`` must start fast).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from policycheck.release.model import Release

#: Seconds per query of the branch-and-bound DCR search, per ``r ** DCR_GROWTH`` reference records
#: and per 12 columns. Calibrated on ``bench.run --case dcr`` with 1 worker on a quiet machine:
#: the four directions at 500,000 rows (2 x 10^6 queries, 12 mixed columns) took 4.01 s (median of
#: three processes, 4.03 CPU-s): 4.0 / 2e6 = 2.0e-6.
DCR_TREE_SECONDS = 2.0e-6

#: How the search's time per query grows with the reference size. With the queries in the tree's
#: leaf order it hardly does: 50,000, 500,000 and 10^6 rows took 0.53, 4.01 and 7.10 s, i.e.
#: 2.7, 2.0 and 1.8 microseconds a query (it grew as r ** 0.15 before the leaf order).
DCR_GROWTH = 0.0

#: Per-feature terms per second of the blocked brute force (all columns numeric, no pruning).
#: Calibrated on the continuous30 shape at 10,000 rows: 3 x 10^9 terms in 0.52 CPU-s (blocks abandoned
#: early make it faster than the raw arithmetic).
DCR_BRUTE_TERMS_PER_SECOND = 5.8e9

#: CPU seconds of the linkage attack on one synthetic set, per attacked record, with p = 5 attributes.
#: Measured (thread CPU time) 1.23-1.35 s per set at 10^5 records, 0.31-0.34 s at 30,000.
LINKAGE_SECONDS_PER_RECORD = 1.3e-5

#: Bytes the linkage keeps per attacked record and set (its pickled result: 7.2 MB at 10^5 records).
LINKAGE_RESULT_BYTES = 72

#: Bytes per encoded value (float64).
VALUE_BYTES = 8


@dataclass(frozen=True)
class StepEstimate:
    """A step's serial CPU seconds and its peak memory in bytes (beyond the loaded release)."""

    seconds: float
    bytes: int

    def describe(self, workers: int = 1) -> str:
        wall = self.seconds / max(1, workers)
        parts = [f"{_seconds(self.seconds)} of CPU"]
        if workers > 1 and self.seconds >= 1:
            parts.append(f"{_seconds(wall)} on {workers} workers")
        parts.append(f"{_megabytes(self.bytes)} of memory")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, float]:
        return {"cpu_seconds": round(self.seconds, 3), "memory_bytes": int(self.bytes)}


def dcr_search_seconds(queries: int, reference: int, columns: int, categorical: int) -> float:
    """Serial seconds of one exact DCR search direction (``methods/nearest_neighbours/``).

    With categorical columns the branch and bound prunes: its time grows
    with the queries and slowly with the reference, ``q * r ** 0.15``. With
    numeric columns only the brute force compares every pair: ``q * r * p``
    terms.
    """
    if categorical == 0:
        return queries * reference * columns / DCR_BRUTE_TERMS_PER_SECOND
    return float(DCR_TREE_SECONDS * queries * reference**DCR_GROWTH * columns / 12)


def gower_dcr(release: Release, synthetic: int, columns: tuple[str, ...] | None = None) -> StepEstimate:
    """The four DCR directions of one synthetic set (``metrics/membership/gower_dcr.py``).

    Time: synthetic -> training, synthetic -> holdout, training -> synthetic,
    holdout -> synthetic. Memory: every set encoded (``p`` values a row), one
    row hash each, and each reference prepared for both searches (the prefix
    tree's sorted rows, the brute force's transposed copy, ``n_cat`` run ends
    a row): ``8 * N * (3p + n_cat + 1)`` bytes for ``N`` rows in all.
    """
    features = list(columns) if columns else list(release.column_types)
    p = len(features)
    n_cat = sum(1 for c in features if release.column_types[c].value == "categorical")
    n_tr = release.original.n_rows
    n_ho = release.holdout.n_rows if release.holdout is not None else 0
    n_sy = release.synthetic[synthetic].n_rows
    seconds = (
        dcr_search_seconds(n_sy, n_tr, p, n_cat)
        + dcr_search_seconds(n_sy, n_ho, p, n_cat)
        + dcr_search_seconds(n_tr, n_sy, p, n_cat)
        + dcr_search_seconds(n_ho, n_sy, p, n_cat)
    )
    rows = n_tr + n_ho + n_sy
    from policycheck.release.stream import streams

    if streams(release.synthetic[synthetic]):
        from policycheck.methods import streamed_dcr

        # Streamed from Parquet: the synthetic set is held a shard at a time (per worker), never whole.
        rows = n_tr + n_ho + min(n_sy, streamed_dcr.SHARD_ROWS)
    return StepEstimate(seconds, VALUE_BYTES * rows * (3 * p + n_cat + 1))


def linkage_set_seconds(records: int, attributes: int) -> float:
    """CPU seconds of the linkage attack (paper 000) on one synthetic set: ranks and sorts per column."""
    return LINKAGE_SECONDS_PER_RECORD * records * (attributes + 1) / 6


def linkage_attack(
    release: Release,
    secret: str | None,
    attributes: tuple[str, ...] | None,
    criterion: str,
    orders: tuple[Any, ...] = (),
    records: str = "original",
    mapping: str = "reverse",
) -> StepEstimate:
    """The linkage attack on every synthetic set (``metrics/linkage.py``'s ``linkage_attack``), either mapping.

    Without ``attributes`` (the policy's quasi-identifiers, unknown here) every
    other column is counted: an upper bound. Memory: each set's result, and
    one set's working arrays (about six float copies of its ``p + 1`` columns).
    """
    attacked = release.original if records == "original" or release.holdout is None else release.holdout
    n, m = attacked.n_rows, len(release.synthetic)
    p = len(attributes) if attributes else len(release.column_types) - 1
    return StepEstimate(m * linkage_set_seconds(n, p), m * LINKAGE_RESULT_BYTES * n + 6 * VALUE_BYTES * n * (p + 1))


#: Seconds of one round of the membership game run through a command template: a process start
#: and a synthesizer library's import dominate (about 2.5 s under load, membership-game guide).
#: ``plan`` runs no command, so it assumes this instead of timing one.
COMMAND_ROUND_SECONDS = 2.5

#: CPU seconds of one shadow-model random forest of 100 trees on a few hundred rounds.
FOREST_SECONDS_PER_100_TREES = 0.15


def membership_game(release: Release, rounds: int, round_seconds: float, targets: int, trees: int) -> StepEstimate:
    """The membership game: ``rounds`` timed rounds (synthesizer run and features) and one forest per target.

    ``round_seconds`` comes from one timed round (``plan`` runs one for a
    built-in or in-process synthesizer). Memory: the population twice (the
    pool and a training set) and one synthetic set per worker, encoded.
    """
    p = len(release.column_types)
    n = release.original.n_rows + (release.holdout.n_rows if release.holdout is not None else 0)
    m = release.synthetic[0].n_rows if release.synthetic else release.original.n_rows
    seconds = rounds * round_seconds + targets * FOREST_SECONDS_PER_100_TREES * trees / 100
    return StepEstimate(seconds, VALUE_BYTES * p * (3 * n + 2 * m) + VALUE_BYTES * rounds * targets * (p + 8))


#: Seconds of the LP attack (paper 001, sec. 4.2) per attacked record and per square root of the
#: number of counting queries' column sets. Measured on the demo's UCI Adult extract (3,000 records,
#: 3,000 synthetic, query order 3, 2 cores under a load of about 15: noisy): 0.85 s with 7
#: quasi-identifiers (35 triples), 2.0 s with 10 (120) and 2.5 s with 14 (364), i.e. 4.4e-5 to
#: 6.0e-5 s per record and square-rooted triple count.
LP_SECONDS_PER_RECORD = 5e-5

#: Seconds of the ML attack's random forest per tree and synthetic record it trains on: 0.6-0.7 s
#: for 100 trees on 3,000 records in the same runs.
FOREST_SECONDS_PER_TREE_ROW = 2.2e-6

#: Seconds per attacked record, synthetic record and quasi-identifier of the DCR and exact-match
#: attacks together: 0.1-0.15 s at 3,000 x 3,000 x 14 in the same runs.
NEAREST_SECONDS_PER_TERM = 1e-9


def reconstruction_attacks(
    release: Release,
    records: str,
    secret: str,
    quasi_identifiers: tuple[str, ...] | None,
    attacks: tuple[str, ...],
    query_orders: tuple[int, ...] = (3,),
    n_queries: int | None = None,
    n_estimators: int = 100,
    **_: Any,
) -> StepEstimate:
    """The attacks of paper 001 (sec. 4.2-4.3) on every synthetic set (``metrics/reconstruction``).

    Without ``quasi_identifiers`` (the policy's, unknown here) every other
    column is counted: an upper bound. The LP grows with the attacked records
    and the square root of its column sets (``sum C(p, k)`` over the query
    orders, at most ``n_queries``); the forest with its trees and the
    synthetic records; the DCR and exact-match attacks with every pair.
    Memory: the attacked and synthetic records a few times over, the LP's
    query rows (one value per record and query) and the forest's nodes.
    """
    from math import comb, sqrt

    attacked = release.original if records == "original" or release.holdout is None else release.holdout
    n = attacked.n_rows
    p = len(quasi_identifiers) if quasi_identifiers else len(release.column_types) - 1
    sets = [max(1, comb(p, k)) for k in query_orders]
    queries = min(sum(sets), n_queries) if n_queries else sum(sets)
    seconds = 0.0
    memory = 0.0
    for synthetic in release.synthetic:
        m = synthetic.n_rows
        if "lp" in attacks:
            seconds += LP_SECONDS_PER_RECORD * n * sqrt(queries)
            memory = max(memory, VALUE_BYTES * n * min(queries, 1_000))
        if "ml" in attacks:
            seconds += FOREST_SECONDS_PER_TREE_ROW * n_estimators * m
            memory = max(memory, 16.0 * n_estimators * m)
        seconds += NEAREST_SECONDS_PER_TERM * n * m * p * sum(a in attacks for a in ("dcr", "exact"))
    frames = VALUE_BYTES * 4 * (n + max((s.n_rows for s in release.synthetic), default=0)) * (p + 1)
    return StepEstimate(seconds, int(memory + frames))


def _seconds(s: float) -> str:
    if s < 1:
        return "under 1 s"
    if s < 120:
        return f"about {s:.0f} s"
    return f"about {s / 60:.0f} min"


def _megabytes(b: float) -> str:
    mb = b / 1e6
    if mb < 1:
        return "under 1 MB"
    if mb < 10_000:
        return f"about {mb:.0f} MB"
    return f"about {mb / 1000:.0f} GB"
