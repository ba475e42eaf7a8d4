"""A synthpop share of the original records, as the excess over the same share of the holdout records.

repU and DiSCO count original records; an independent synthesizer still
replicates some uniques and discloses some targets by chance. The holdout
records, which the synthesizer never saw, measure that chance: put in the
original's place they give the share the synthetic data matches for people
it never saw, and the rule's value is the excess over it (``baseline:
none``: synthpop's raw share). Each set's share has a Clopper-Pearson
interval at the Bonferroni level of the sets; the rule reports the worst set.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from policycheck.metrics.base import EvaluationContext, MetricResult
from policycheck.metrics.combinators import WorstOfSets, worst_of_sets
from policycheck.metrics.synthpop.common import (
    KeyLookup,
    KeyLookupDetails,
    KeysParams,
    SynthpopMeasures,
    unmatched_keys_note,
)
from policycheck.release.model import Dataset

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.synthpop_disclosure import Disclosure


@dataclass(frozen=True)
class ShareOfSet:
    """One synthetic set's share of the original records, and its excess over the holdout's share."""

    synthetic: str
    #: The raw share: records counted over ``denominator``.
    share: float
    raw_interval: tuple[float, float]
    records: int
    denominator: int
    all_measures: SynthpopMeasures
    #: The same share with the holdout records in the original's place; None without a control.
    holdout_share: float | None
    #: The share minus the holdout's share (the raw share without a control), and its interval.
    value: float
    interval: tuple[float, float]


def shares_of_sets(
    ctx: EvaluationContext,
    params: KeysParams,
    lookup: KeyLookup,
    control: KeyLookup | None,
    measure: str,
) -> WorstOfSets[ShareOfSet]:
    """Every set's ``measure`` ("repU" or "DiSCO") against the holdout's, and the worst set (Raab et al. 2024, 3)."""
    from policycheck.core import stats

    results = lookup.results
    controls: list[Disclosure | None] = list(control.results) if control is not None else [None] * len(results)

    def share(i: int, dataset: Dataset, level: float) -> ShareOfSet:
        c, control = results[i].counts, controls[i]
        k = getattr(c, measure)
        raw_interval = stats.clopper_pearson(k, c.n_original, level)
        raw = ShareOfSet(
            synthetic=dataset.name,
            share=k / c.n_original,
            raw_interval=raw_interval,
            records=k,
            denominator=c.n_original,
            all_measures=SynthpopMeasures.of(c),
            holdout_share=None,
            value=k / c.n_original,
            interval=raw_interval,
        )
        if control is None:
            return raw
        kc, nc = getattr(control.counts, measure), control.counts.n_original
        base_interval = stats.clopper_pearson(kc, nc, level)
        return replace(
            raw,
            holdout_share=kc / nc,
            value=k / c.n_original - kc / nc,
            # The difference of the two exact intervals' ends: conservative.
            interval=(raw_interval[0] - base_interval[1], raw_interval[1] - base_interval[0]),
        )

    return worst_of_sets(ctx, params.confidence, share, lambda s: s.value)


def share_result(
    ctx: EvaluationContext,
    params: KeysParams,
    measure: str,
    sets: WorstOfSets[ShareOfSet],
    details: KeyLookupDetails,
) -> MetricResult:
    """The worst set's share as the rule's value: the excess over the holdout's unless ``baseline: none``."""
    worst = sets.worst
    assert worst is not None  # every set has a share
    control = worst.holdout_share is not None
    notes: tuple[str, ...] = ()
    if params.baseline == "holdout" and ctx.release.holdout is None:
        notes = ("The release has no holdout, so the value is synthpop's raw share, chance matches included.",)
    notes += unmatched_keys_note(details.unmatched_keys)
    return MetricResult(
        value=worst.value,
        interval=worst.interval,
        confidence=sets.level,
        details=details,
        notes=notes,
        baseline=worst.holdout_share,
        raw=worst.share,
        baseline_label=(
            f"synthpop's {measure} with the holdout records in the original's place: what the synthetic data matches "
            "for people it never saw"
            if control
            else None
        ),
        sample_size=worst.denominator,
    )
