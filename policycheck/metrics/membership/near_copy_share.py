"""``near_copy_share``: synthetic records near a training record, beyond chance (paper 002, sec. 3).

A copy with one value nudged (an age off by a year) is still that person's
record, and it is no exact copy: ``exact_copy_share`` does not see it, and
the DCR share and MI risk, which average over every record, barely move
(5% of near copies of Adult records moved the DCR share by 0.02, within its
interval). This rule counts the synthetic records within Gower distance
``within`` of a training record, minus those within it of a holdout record:
a near copy of a common record is near a holdout record too and cancels,
a near copy of a rare one does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need, Resolution
from policycheck.metrics.details import detail
from policycheck.metrics.membership.common import columns_used, membership_metric
from policycheck.metrics.membership.exact_copy_share import (
    ExactCopyShareDetails,
    ExactCopyShareParams,
    copies_result,
    copy_resolution,
)
from policycheck.metrics.membership.gower_dcr import dcrs_in_set_order
from policycheck.metrics.registry import Method
from policycheck.release.model import Release

METHOD = Method(
    definition="Share of synthetic records within Gower distance `within` of a training record (on every column "
    "used), minus the share within it of a holdout record (baseline: none, the raw share); exact interval "
    "from the discordant records, as for exact copies.",
    source="paper 002, sec. 3 (the DCR; a copy is a DCR of 0, a near copy one at most `within`)",
)


class NearCopyShareParams(ExactCopyShareParams):
    within: float = Field(
        gt=0,
        le=1,
        description=(
            "Gower distance at or below which a synthetic record is a near copy of a real record. With p columns "
            "used, a record equal on every column but one numeric column, off by a share d of that column's "
            "range, is at d / p: on Adult's 8 columns an age off by 1 year (range 74) is at 1 / 74 / 8 = 0.0017."
        ),
    )


class NearCopyShareDetails(ExactCopyShareDetails):
    within: float = detail(
        "Near-copy distance", help="A synthetic record at this Gower distance of a real record, or nearer, is a copy."
    )
    one_column: dict[str, float] = detail(
        "One column apart",
        help="How far each numeric column may differ, every other column equal, for a record to be a near copy: "
        "the distance times the columns used times the column's range. One categorical mismatch is 1 / columns.",
    )


def one_column_reach(within: float, gower: Mapping[str, Any]) -> dict[str, float]:
    """Per numeric column, the largest difference that alone keeps a record within ``within``.

    A numeric term is ``|x - y| / R`` and the distance its mean over the ``p`` columns used
    (:mod:`policycheck.methods.gower`), so one column alone may differ by ``within * p * R``.
    """
    p = len(gower["features"])
    return {c: within * p * (hi - lo) for c, (lo, hi) in gower["numeric_ranges"].items()}


#: Holdout records that stand in for fresh records in the resolution's estimate: a larger holdout is
#: sampled (evenly, by row), each sampled record searched against the training set and the rest of it.
RESOLUTION_SAMPLE = 2_000


def near_copy_resolution(params: NearCopyShareParams, release: Release) -> Resolution:
    """The near-copy share's interval at no leak, from the real records' chance near matches.

    As :func:`~policycheck.metrics.membership.exact_copy_share.exact_copy_resolution`, a copy
    widened to any record within Gower distance ``within``, in an encoding fitted on the real sets
    (the rule's own also spans the synthetic sets, which seldom widen a range, and reading a streamed
    set's columns for it cost 5 s at 1.2 million rows). A holdout record copies the training set
    when its nearest training record is that near, and the holdout when its nearest other holdout
    record is. Up to
    :data:`RESOLUTION_SAMPLE` holdout records, each is searched against all the others (its own
    record, at distance 0, is one of its two nearest); above, an even sample of them against the rest,
    which leaves each sampled record's real set short of the sampled others (under 1% from 200,000
    records on).
    """
    import numpy as np

    from policycheck.methods.gower import fit_gower
    from policycheck.methods.k_nearest_neighbours import k_nearest

    features = columns_used(params, release)
    holdout = release.holdout
    assert holdout is not None  # the family reads a holdout (its inputs)
    enc = fit_gower([release.original.frame, holdout.frame], release.column_types, release.orders, features)
    x_train, x_hold = enc.encode(release.original.frame), enc.encode(holdout.frame)
    n = len(x_hold)
    if n <= RESOLUTION_SAMPLE:
        queries, others = x_hold, x_hold
        other_column = 1  # the second nearest: the record itself (or a duplicate) is at 0
    else:
        rows = np.arange(0, n, -(-n // RESOLUTION_SAMPLE))
        queries, others = x_hold[rows], np.delete(x_hold, rows, axis=0)
        other_column = 0
    near_training = k_nearest(queries, x_train, enc.kinds, 1)[1][:, 0] <= params.within
    if len(others) <= other_column:  # a holdout of one record: no other record to be near
        near_other = np.zeros(len(queries), dtype=bool)
    else:
        near_other = k_nearest(queries, others, enc.kinds, other_column + 1)[1][:, other_column] <= params.within
    return copy_resolution(
        params, release, near_training, near_other, f"within {params.within:g} of", f"come within {params.within:g} of"
    )


@membership_metric(
    name="near_copy_share",
    method=METHOD,
    params=NearCopyShareParams,
    details=NearCopyShareDetails,
    resolution=near_copy_resolution,
    knowledge={Knowledge.SYNTHETIC},
    meaning=(
        "The share of synthetic records that are a training record with at most a small change (within the "
        "rule's Gower distance). Near copies of common records occur by chance, as often near holdout records; "
        "near copies of training records beyond that mean real records were released with a value nudged."
    ),
    remedy=(
        "Remove synthetic records near a training record, and regenerate with a synthesizer that does not "
        "memorise its training data: nudging copied values does not protect the people copied."
    ),
)
def near_copy_share(ctx: EvaluationContext, params: NearCopyShareParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of synthetic records near a training record (DCR at most `within`), minus the holdout's share.

    Paper 002, sec. 3, with a radius: the copies of
    :func:`policycheck.metrics.membership.exact_copy_share.measure_copies`
    at DCR ``within`` or less, against the holdout (same size as the training
    set, never seen by the synthesizer). With several synthetic sets the value
    is the largest.
    """
    # Every set's encoding takes its ranges over all sets (gower_dcr), so the first set's are every set's.
    gower = dcrs_in_set_order(needs)[0].gower
    details = partial(NearCopyShareDetails, within=params.within, one_column=one_column_reach(params.within, gower))
    return copies_result(ctx, params, needs, params.within, details)
