"""repU: the share of original records unique on the keys whose key is unique in the synthetic data too."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Method
from policycheck.metrics.synthpop.common import (
    SYNTHPOP_BASELINE,
    KeyLookupDetails,
    KeysParams,
    SynthpopMeasures,
    lookup_needs,
    lookups,
    synthpop_metric,
)
from policycheck.metrics.synthpop.share import ShareOfSet, share_result, shares_of_sets

REPU_METHOD = Method(
    definition="repU: share of original records unique on the keys whose key is unique in the synthetic data too, "
    "minus the holdout's repU.",
    source="Raab, Nowok, Dibben 2024, sec. 3.1 (synthpop)",
    conventions=(dataclasses.replace(SYNTHPOP_BASELINE, effect="replicated_uniques/holdout-baseline"),),
)


class ReplicatedUniquesOfSet(Details):
    """repU of one synthetic set."""

    synthetic: str = detail("Synthetic set")
    repU: float = detail("Replicated uniques (repU)", format="share", help="Raw: the holdout's share not subtracted.")
    raw_interval: tuple[float, float] = detail("Clopper-Pearson interval of repU", format="data")
    records: int = detail("Original records unique in both", unit="records")
    denominator: int = detail("Original records", unit="records")
    all_measures: SynthpopMeasures = detail("synthpop's measures", format="data")
    holdout_repU: float | None = detail(
        "repU with the holdout records in the original's place", format="share", help="None without a holdout."
    )
    value: float = detail("repU minus the holdout's", format="share")
    interval: tuple[float, float] = detail("Interval of the value", format="data")

    @classmethod
    def of(cls, s: ShareOfSet) -> ReplicatedUniquesOfSet:
        return cls(
            synthetic=s.synthetic,
            repU=s.share,
            raw_interval=s.raw_interval,
            records=s.records,
            denominator=s.denominator,
            all_measures=s.all_measures,
            holdout_repU=s.holdout_share,
            value=s.value,
            interval=s.interval,
        )


class ReplicatedUniquesDetails(KeyLookupDetails):
    worst_set: str = detail("Worst synthetic set")
    keys: list[str] = detail("Key columns", format="data")
    definition: str = detail(
        "Definition", default="#{original records with d(k) = 1 and s(k) = 1} / N_original (synthpop's repU / 100)"
    )
    unique_in_original_UiO: float = detail("Unique in the original (UiO)", format="share", help="The most repU can be.")
    per_set: list[ReplicatedUniquesOfSet] = detail("Per synthetic set", format="data")


@synthpop_metric(
    name="replicated_uniques",
    method=REPU_METHOD,
    params=KeysParams,
    details=ReplicatedUniquesDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys",),
    needs=lambda p, r: lookup_needs(p, r, control=p.baseline == "holdout"),
    meaning=(
        "The share of original records that are the only one with their combination of key values and whose "
        "combination is also unique in the synthetic data (repU). Such a synthetic record looks like a real, "
        "identifiable person; UiO beside it is the share unique in the original, the most repU can be."
    ),
    remedy="Regenerate with a synthesizer that does not reproduce rare key combinations, or coarsen the keys.",
)
def replicated_uniques(ctx: EvaluationContext, params: KeysParams, needs: Mapping[Need, Any]) -> MetricResult:
    """repU: share of original records unique on the keys whose key is unique in the synthetic data too."""
    lookup, control = lookups(params, needs)
    keys, results = lookup.keys, lookup.results
    sets = shares_of_sets(ctx, params, lookup, control, "repU")
    assert sets.worst is not None  # every set has a share
    c = results[0].counts
    details = ReplicatedUniquesDetails(
        worst_set=sets.worst.synthetic,
        keys=keys,
        unmatched_keys=lookup.unmatched,
        key_groups=lookup.groups,
        unique_in_original_UiO=c.UiO / c.n_original,
        per_set=[ReplicatedUniquesOfSet.of(s) for s in sets.per_set],
    )
    return share_result(ctx, params, "repU", sets, details)
