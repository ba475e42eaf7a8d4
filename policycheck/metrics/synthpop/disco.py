"""DiSCO: the share of original records the synthetic data discloses correctly (Raab, Nowok and Dibben 2024)."""

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
    TargetParams,
    lookup_needs,
    lookups,
    synthpop_metric,
)
from policycheck.metrics.synthpop.share import ShareOfSet, share_result, shares_of_sets

DISCO_METHOD = Method(
    definition="DiSCO: share of original records whose key the synthetic data ties to one target value, the right "
    "one, minus the holdout's DiSCO.",
    source="Raab, Nowok, Dibben 2024, sec. 3.2 (synthpop)",
    conventions=(dataclasses.replace(SYNTHPOP_BASELINE, effect="disco/holdout-baseline"),),
)


class DiscoParams(KeysParams, TargetParams):
    """DiSCO's params: the keys and their grouping, the holdout baseline, the target and its grouping."""


class DiscoOfSet(Details):
    """DiSCO of one synthetic set."""

    synthetic: str = detail("Synthetic set")
    DiSCO: float = detail("DiSCO", format="share", help="Raw: the holdout's share not subtracted.")
    raw_interval: tuple[float, float] = detail("Clopper-Pearson interval of DiSCO", format="data")
    records: int = detail("Original records disclosed correctly", unit="records")
    denominator: int = detail("Original records", unit="records")
    all_measures: SynthpopMeasures = detail("synthpop's measures", format="data")
    holdout_DiSCO: float | None = detail(
        "DiSCO with the holdout records in the original's place", format="share", help="None without a holdout."
    )
    value: float = detail("DiSCO minus the holdout's", format="share")
    interval: tuple[float, float] = detail("Interval of the value", format="data")

    @classmethod
    def of(cls, s: ShareOfSet) -> DiscoOfSet:
        return cls(
            synthetic=s.synthetic,
            DiSCO=s.share,
            raw_interval=s.raw_interval,
            records=s.records,
            denominator=s.denominator,
            all_measures=s.all_measures,
            holdout_DiSCO=s.holdout_share,
            value=s.value,
            interval=s.interval,
        )


class DiscoDetails(KeyLookupDetails):
    worst_set: str = detail("Worst synthetic set")
    keys: list[str] = detail("Key columns", format="data")
    target: str = detail("Target column")
    definition: str = detail(
        "Definition", default="#{original records with p_s(t|k) = 1} / N_original (synthpop's DiSCO / 100)"
    )
    disclosive_in_original_DiO: float = detail(
        "Target disclosed by the original (DiO)", format="share", help="What the original data itself discloses."
    )
    key_in_synthetic_iS: float = detail(
        "Key in the synthetic data (iS)", format="share", help="In the first synthetic set; every set's in per_set."
    )
    per_set: list[DiscoOfSet] = detail("Per synthetic set", format="data")


@synthpop_metric(
    name="disco",
    method=DISCO_METHOD,
    params=DiscoParams,
    details=DiscoDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys", "target"),
    needs=lambda p, r: lookup_needs(p, r, control=p.baseline == "holdout"),
    meaning=(
        "The share of original records whose key values, looked up in the synthetic data, point to a single "
        "target value that is the person's true one (DiSCO: disclosive in synthetic, correct in original). DiO "
        "beside it is the share the original data itself discloses, iS the share whose key occurs in the "
        "synthetic data at all."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not tie the target to key combinations shared by few people, "
        "or coarsen the keys or the target."
    ),
)
def disco(ctx: EvaluationContext, params: DiscoParams, needs: Mapping[Need, Any]) -> MetricResult:
    """DiSCO: share of original records the synthetic data discloses correctly (p_s(t|k) = 1)."""
    lookup, control = lookups(params, needs)
    keys, results = lookup.keys, lookup.results
    sets = shares_of_sets(ctx, params, lookup, control, "DiSCO")
    assert sets.worst is not None  # every set has a share
    c = results[0].counts
    details = DiscoDetails(
        worst_set=sets.worst.synthetic,
        keys=keys,
        unmatched_keys=lookup.unmatched,
        key_groups=lookup.groups,
        target=lookup.target,
        disclosive_in_original_DiO=c.DiO / c.n_original,
        key_in_synthetic_iS=c.iS / c.n_original,
        per_set=[DiscoOfSet.of(s) for s in sets.per_set],
    )
    return share_result(ctx, params, "DiSCO", sets, details)
