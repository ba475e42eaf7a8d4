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

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.membership.common import membership_metric
from policycheck.metrics.membership.exact_copy_share import (
    ExactCopyShareDetails,
    ExactCopyShareParams,
    copies_result,
)
from policycheck.metrics.membership.gower_dcr import dcrs_in_set_order
from policycheck.metrics.registry import Method

METHOD = Method(
    definition="Share of synthetic records within Gower distance `within` of a training record (on every column "
    "used), minus the share within it of a holdout record (baseline: none, the raw share); exact conditional "
    "interval on the discordant records, as for exact copies.",
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


@membership_metric(
    name="near_copy_share",
    method=METHOD,
    params=NearCopyShareParams,
    details=NearCopyShareDetails,
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
