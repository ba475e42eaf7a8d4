"""TCAP: the targeted correct attribution probability (Taub et al. 2018), raw or as the excess over the holdout's.

TCAP near 1 says the synthetic data tells the targeted people their target.
Part of that it tells anyone: where the population ties the target to the
keys, a synthesizer that learnt only the population attributes it as well to
people it never saw. ``baseline: holdout`` measures that part with the
holdout records in the original's place (as repU and DiSCO do) and reports
the excess; ``baseline: none`` (the default, so that existing levels keep
their meaning) reports Taub et al.'s raw TCAP beside the marginal guess.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Convention, Method
from policycheck.metrics.synthpop.common import (
    KeyLookupDetails,
    KeyLookupParams,
    TargetParams,
    lookup_needs,
    lookups,
    synthpop_metric,
    unmatched_keys_note,
)
from policycheck.release.model import Dataset

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.synthpop_disclosure import Disclosure

TCAP_METHOD = Method(
    definition="TCAP: over original records whose key determines the target and occurs in the synthetic data, the "
    "mean share of synthetic records with the key carrying the target; marginal-guess baseline, or (baseline: "
    "holdout) minus the same mean over the holdout records.",
    source="Taub et al. 2018, sec. 3",
    conventions=(
        Convention(
            topic="definition",
            peer="synthpop 1.9",
            theirs="its TCAP column is DiSCO / iS, a different number",
            ours="Taub et al.'s; synthpop's in the details",
        ),
        Convention(
            topic="chance",
            peer="Taub et al. 2018",
            theirs="TCAP beside the guess from the target's distribution",
            ours="the same with baseline: none; baseline: holdout subtracts TCAP with the holdout records in the "
            "original's place",
        ),
    ),
)


class KeysTargetParams(KeyLookupParams, TargetParams):
    baseline: Literal["holdout", "none"] = Field(
        "none",
        description="none: Taub et al.'s TCAP; holdout: TCAP minus the same with the holdout records in the "
        "original's place (what the synthetic data attributes to people it never saw).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the interval.")


class TcapOfSet(Details):
    """TCAP of one synthetic set; undefined (None) when no record qualifies."""

    synthetic: str = detail("Synthetic set")
    tcap: float | None = detail("TCAP", format="share")
    interval: tuple[float, float] | None = detail("Bootstrap interval of TCAP", format="data", default=None)
    baseline: float | None = detail(
        "Marginal-guess baseline", format="share", help="The mean share of each record's target value.", default=None
    )
    records: int = detail("Original records TCAP averages over", unit="records")
    synthpop_TCAP_column: float | None = detail("synthpop 1.9's TCAP column: DiSCO / iS", format="share", default=None)
    holdout_tcap: float | None = detail(
        "TCAP with the holdout records in the original's place",
        format="share",
        help="0 when no holdout record qualifies; None without baseline: holdout.",
        default=None,
    )
    holdout_interval: tuple[float, float] | None = detail(
        "Bootstrap interval of the holdout's TCAP", format="data", default=None
    )
    holdout_records: int | None = detail(
        "Holdout records the holdout's TCAP averages over", unit="records", default=None
    )
    value: float | None = detail(
        "TCAP minus the holdout's", format="share", help="TCAP itself without baseline: holdout.", default=None
    )
    value_interval: tuple[float, float] | None = detail("Interval of the value", format="data", default=None)


class TcapDetails(KeyLookupDetails):
    worst_set: str = detail("Worst synthetic set")
    keys: list[str] = detail("Key columns", format="data")
    target: str = detail("Target column")
    definition: str = detail(
        "Definition",
        default="mean of p_s(t|k) over original records with p_d(t|k) = 1 whose key occurs in the synthetic data",
    )
    per_set: list[TcapOfSet] = detail("Per synthetic set", format="data")


@synthpop_metric(
    name="tcap",
    method=TCAP_METHOD,
    params=KeysTargetParams,
    details=TcapDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("keys", "target"),
    needs=lambda p, r: lookup_needs(p, r, control=p.baseline == "holdout"),
    holdout_baseline_needs_holdout=True,
    meaning=(
        "For the people whose key values determine the target in the original data, how often, on average, the "
        "synthetic records with the same key carry that person's target value (targeted correct attribution "
        "probability). The baseline is what guessing from the target's overall distribution gets or, with "
        "baseline: holdout, the same lookup for people the synthetic data was not made from."
    ),
    remedy="Regenerate with a synthesizer that keeps less of the link between the keys and the target.",
)
def tcap(ctx: EvaluationContext, params: KeysTargetParams, needs: Mapping[Need, Any]) -> MetricResult:
    """TCAP (Taub et al. 2018, sec. 3): mean p_s(t|k) over original records with p_d(t|k) = 1, key in the synthetic set.

    With ``baseline: holdout``, minus the same mean over holdout records whose key fixes the target in
    the holdout. Either mean over no record counts 0: the lookup attributes nothing to anyone.
    """
    from policycheck.core import stats

    lookup, control = lookups(params, needs)
    keys, target, results = lookup.keys, lookup.target, lookup.results
    if params.baseline == "holdout" and control is None:
        # The raw TCAP is on another scale than the excess the levels were set for.
        raise EvaluationError(
            "tcap with baseline: holdout needs a holdout set, and the release has none "
            "(baseline: none gives the raw TCAP, which needs levels of its own)."
        )
    controls: list[Disclosure | None] = list(control.results) if control is not None else [None] * len(results)

    def mean_of(values: Any) -> Callable[[Any], float]:
        return lambda idx: float(values[idx].mean()) if idx.size else 0.0

    def mean_interval(values: Any, stream: tuple[Any, ...], level: float) -> tuple[float, float]:
        if values.size == 0:
            return (0.0, 0.0)
        return stats.bootstrap_interval(mean_of(values), values.size, ctx.rng(*stream), 200, level)

    def attribution(i: int, dataset: Dataset, level: float) -> TcapOfSet:
        c, control = results[i].counts, controls[i]
        if c.tcap_records == 0 and control is None:
            return TcapOfSet(synthetic=dataset.name, tcap=None, records=0)
        values = results[i].tcap_per_record
        interval = mean_interval(values, ("tcap", i), level)
        measured = TcapOfSet(
            synthetic=dataset.name,
            tcap=c.tcap if c.tcap_records else None,
            interval=interval if c.tcap_records else None,
            baseline=c.tcap_baseline if c.tcap_records else None,
            records=c.tcap_records,
            synthpop_TCAP_column=c.shares()["synthpop_TCAP"],
            value=c.tcap,
            value_interval=interval,
        )
        if control is None:
            return measured
        held = control.tcap_per_record
        own = c.tcap if c.tcap_records else 0.0
        control_tcap = control.counts.tcap if held.size else 0.0
        # Training and holdout records are independent samples: each resample draws both anew.
        excess = stats.bootstrap_difference_interval(
            mean_of(values), values.size, mean_of(held), held.size, ctx.rng("tcap", "excess", i), 200, level
        )
        return measured.model_copy(
            update={
                "holdout_tcap": control_tcap,
                "holdout_interval": mean_interval(held, ("tcap", "holdout", i), level),
                "holdout_records": held.size,
                "value": own - control_tcap,
                "value_interval": excess,
            }
        )

    sets = worst_of_sets(ctx, params.confidence, attribution, lambda s: s.value)
    worst = sets.worst
    if worst is None or worst.value is None or worst.value_interval is None:
        raise EvaluationError(
            "TCAP is undefined: no original record whose keys determine the target has its key in the synthetic data."
            + "".join(f" {note}" for note in unmatched_keys_note(lookup.unmatched))
            + (" With baseline: holdout, such a TCAP counts 0." if ctx.release.holdout is not None else "")
        )
    notes: tuple[str, ...] = ()
    baseline, baseline_label = (
        worst.baseline,
        "the share of each record's target value in the original: a guess from the target's distribution",
    )
    if worst.holdout_tcap is not None:
        baseline, baseline_label = (
            worst.holdout_tcap,
            "TCAP with the holdout records in the original's place: what the synthetic data attributes to people it "
            "never saw",
        )
        if not worst.records:
            notes += (
                "No original record whose key fixes the target has its key in the synthetic data: the lookup "
                "attributes nothing to the people the synthetic data was made from, and their TCAP counts 0.",
            )
        if not worst.holdout_records:
            notes += (
                "No holdout record's key fixes the target in the holdout and occurs in the synthetic data: the "
                "holdout's TCAP counts 0.",
            )
    unmatched = lookup.unmatched
    return MetricResult(
        value=worst.value,
        interval=worst.value_interval,
        confidence=sets.level,
        details=TcapDetails(
            worst_set=worst.synthetic,
            keys=keys,
            target=target,
            per_set=sets.per_set,
            unmatched_keys=unmatched,
            key_groups=lookup.groups,
        ),
        notes=notes + unmatched_keys_note(unmatched),
        baseline=baseline,
        raw=worst.tcap,
        baseline_label=baseline_label,
        sample_size=worst.records,
    )
