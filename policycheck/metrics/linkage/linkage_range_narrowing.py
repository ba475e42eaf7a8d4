"""``linkage_range_narrowing``: the share of real people whose secret is pinned to a correct, narrow range.

Paper 000, sec. 4: across the M released sets the attacker identifies, for
each original record, a range of the secret (Table 3: record 18 "between 2298
and 2428"). A record is narrowed when that range holds the true value and is
at most ``fraction`` of the secret's range in the original: a range exactly
that wide counts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.linkage.baseline import against_baseline, marginal_and_counts
from policycheck.metrics.linkage.charts import risk_chart, width_histogram
from policycheck.metrics.linkage.common import LINKAGE_BASELINE, LINKAGE_MAPPING, LINKAGE_SOURCE, linkage_metric
from policycheck.metrics.linkage.evidence import LinkageDetails, RecordView, risk_by_sets, single_set, top_records
from policycheck.metrics.linkage.mappings import MappingOutcome, worse_mapping
from policycheck.metrics.linkage.params import ListedRecordsParams
from policycheck.metrics.registry import Method

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack

METHOD = Method(
    definition="Share of original records whose secret the maximum-knowledge attacker (reverse mapping or the values "
    "as released, rank-based linkage of every set) pins to a range that holds the true value and is at most "
    "`fraction` of the secret's range, minus the baseline; the worse mapping.",
    source=LINKAGE_SOURCE,
    conventions=(LINKAGE_BASELINE, LINKAGE_MAPPING),
)


class RangeNarrowingParams(ListedRecordsParams):
    fraction: float = Field(
        0.1,
        gt=0.0,
        le=1.0,
        description=(
            "A record counts as narrowed when its identified range holds the true value and is at most this "
            "fraction of the secret's range in the original."
        ),
    )


class RangeNarrowingDetails(LinkageDetails):
    fraction: float = detail("Narrow: at most this fraction of the secret's range", format="share")
    narrowed: int = detail("Records narrowed", unit="records")
    holds_true_value: int = detail("Records whose range holds the true value", unit="records")
    median_width: float | None = detail("Median width of the identified ranges", format="share")
    most_narrowed: list[RecordView] = detail("Most narrowed records")


@linkage_metric(
    name="linkage_range_narrowing",
    method=METHOD,
    params=RangeNarrowingParams,
    details=RangeNarrowingDetails,
    meaning=(
        "Share of real people whose secret value an attacker holding the original data and all released sets "
        "can pin to a correct range no wider than the given fraction of that attribute's range."
    ),
    remedy=(
        "Release fewer synthetic sets, or regenerate them with a synthesizer that keeps fewer record-level "
        "links between the linkage attributes and the secret (e.g. stronger differential privacy)."
    ),
)
def linkage_range_narrowing(
    ctx: EvaluationContext, params: RangeNarrowingParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Share of original records whose secret is narrowed to a correct, narrow range across all released sets.

    The value is that share minus its baseline (chance, or the same attack on
    holdout records; :func:`policycheck.metrics.linkage.baseline.against_baseline`)
    unless ``baseline: none``; the worse of the mappings
    (:func:`policycheck.metrics.linkage.mappings.worse_mapping`).
    """
    return worse_mapping(ctx, params, needs, narrowing_under_one_mapping, RangeNarrowingDetails)


def narrowing_under_one_mapping(
    ctx: EvaluationContext, params: RangeNarrowingParams, attack: LinkageAttack, control: LinkageAttack | None
) -> MappingOutcome:
    """Range narrowing (sec. 4) under one mapping, against chance (:func:`chance.narrowed`) and the control."""
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    flags = d.narrowed(params.fraction)
    marginal, true, candidates = marginal_and_counts(attack)
    chance_rate = float(np.mean(chance.narrowed(marginal, true, candidates.sum(axis=1), params.fraction, d.span)))
    compared = against_baseline(params, attack, control, lambda x: x.narrowed(params.fraction), chance_rate)
    by_sets = risk_by_sets(attack, lambda m: d.narrowed(params.fraction, m))
    known = d.known
    widths = d.width()
    shown = known & ~np.isnan(widths)
    evidence = {
        "fraction": params.fraction,
        "narrowed": int(np.count_nonzero(flags & known)),
        "holds_true_value": int(np.count_nonzero(d.holds_true() & known)),
        "median_width": float(np.median(widths[shown])) if shown.any() else None,
        "per_set": single_set(attack, ctx, lambda m: d.only_set(m).narrowed(params.fraction)),
        "by_number_of_sets": by_sets,
        "most_narrowed": top_records(attack, flags, params.show_values, ctx),
    }
    charts = (
        width_histogram(attack, params.fraction),
        risk_chart(
            f"Range narrowing of {attack.secret} against the number of sets",
            "share of records narrowed",
            by_sets,
            compared,
        ),
    )
    return MappingOutcome(attack, compared, evidence, charts)
