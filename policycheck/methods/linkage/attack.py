"""The maximum-knowledge attacker's whole attack on one secret (paper 000, secs. 3-4).

Pre-sample each synthetic set to the original's size (sec. 3.1), reverse-map
the attacker's attributes and the secret (sec. 3.1), link every original
record to each set on the attributes while ignoring the secret (sec. 3.2),
and read the secret values identified (sec. 4). One released set is one
work item for the executor.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from policycheck.executor import Executor, SerialExecutor
from policycheck.methods.linkage.presampling import Presampling, presample
from policycheck.methods.linkage.range_narrowing import AttributeDisclosure, identified_secret
from policycheck.methods.linkage.rank_linkage import Linkage, link, own_mid_ranks
from policycheck.methods.linkage.reverse_mapping import AttributeOrder, ordinal_ranks, rows_of_rank
from policycheck.release.model import Release


@dataclass(frozen=True)
class SetLinkage:
    """The attack's outcome against one synthetic set."""

    linkage: Linkage
    low: np.ndarray  # lowest secret value identified, per original record
    high: np.ndarray  # highest secret value identified, per original record
    secret_ranks: np.ndarray  # Rank of the secret of each (pre-sampled) synthetic record, 1..n


@dataclass(frozen=True)
class LinkageAttack:
    """Everything the report needs about one attack on one secret."""

    secret: str
    attributes: tuple[str, ...]
    criterion: str
    orders: Mapping[str, AttributeOrder]
    presampling: tuple[Presampling, ...]
    sets: tuple[SetLinkage, ...]
    disclosure: AttributeDisclosure
    sorted_secret: np.ndarray  # original secret codes by rank: value of rank k at k - 1


def attack_one_set(item: tuple[np.ndarray, np.ndarray, str]) -> SetLinkage:
    """Reverse-map one set, link on the attributes and read the secret (secs. 3.1, 3.2, 4).

    Parameters
    ----------
    item
        ``(original, synthetic, criterion)``: float codes of shape ``(n, p + 1)``
        whose last column is the secret, the synthetic set already pre-sampled
        to ``n`` rows.
    """
    original, synthetic, criterion = item
    p = original.shape[1] - 1
    ranks = np.column_stack([ordinal_ranks(synthetic[:, j]) for j in range(p + 1)])
    # Reverse mapping: synthetic rank k becomes the original row holding x_(k).
    orders = [np.argsort(original[:, j], kind="stable") for j in range(p + 1)]
    rows = np.column_stack([rows_of_rank(original[:, j], ranks[:, j], orders[j]) for j in range(p + 1)])
    # A reverse-mapped value is the value of an original row, so its mid-rank is that row's.
    o = np.column_stack([own_mid_ranks(original[:, j], orders[j]) for j in range(p)])
    s = np.column_stack([o[rows[:, j], j] for j in range(p)])
    linkage = link(o, s, criterion)
    low, high = identified_secret(linkage, original[rows[:, p], p])
    return SetLinkage(linkage, low, high, ranks[:, p])


def run_attack(
    release: Release,
    secret: str,
    attributes: Sequence[str],
    criterion: str,
    orders: Mapping[str, AttributeOrder],
    rngs: Sequence[np.random.Generator],
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> LinkageAttack:
    """Mount the attribute-disclosure attack of sec. 4 on ``secret`` with every released set.

    Parameters
    ----------
    orders
        How each of ``attributes`` and ``secret`` is ranked.
    rngs
        One generator per synthetic set, for pre-sampling.
    """
    columns = [*attributes, secret]
    original_frame = release.original.frame
    original = np.column_stack([orders[c].codes(original_frame[c]) for c in columns])
    items, records = [], []
    for dataset, rng in zip(release.synthetic, rngs, strict=True):
        rows, record = presample(dataset.n_rows, len(original_frame), rng)
        frame = dataset.frame.iloc[rows].reset_index(drop=True)
        items.append((original, np.column_stack([orders[c].codes(frame[c]) for c in columns]), criterion))
        records.append(record)
    sets = (executor or SerialExecutor()).map(attack_one_set, items, progress)
    true = original[:, -1]
    disclosure = AttributeDisclosure(
        true=true,
        low=np.column_stack([s.low for s in sets]),
        high=np.column_stack([s.high for s in sets]),
        span=float(np.nanmax(true) - np.nanmin(true)),
    )
    return LinkageAttack(
        secret=secret,
        attributes=tuple(attributes),
        criterion=criterion,
        orders=dict(orders),
        presampling=tuple(records),
        sets=tuple(sets),
        disclosure=disclosure,
        sorted_secret=np.sort(true),
    )
