"""The worse of the mappings: each rule evaluated under every mapping the attacker may read the sets by.

The paper's attacker reverse-maps every set (paper 000, sec. 3.1); the same
attacker may instead link on the values as released. A rule reports the
mapping worse for the releaser, each mapping's intervals at the Bonferroni
level (:func:`policycheck.metrics.combinators.worst_of`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.combinators import Estimate, bonferroni_note, worst_interval_noted, worst_of
from policycheck.metrics.linkage.baseline import Compared
from policycheck.metrics.linkage.evidence import LinkageDetails, MappingRow, attack_evidence, notes
from policycheck.metrics.linkage.linkage_attack import attacks_by_mapping
from policycheck.metrics.linkage.params import LinkageParams

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    from policycheck.methods.linkage.attack import LinkageAttack

P = TypeVar("P", bound=LinkageParams)


@dataclass(frozen=True)
class MappingOutcome:
    """A rule under one mapping: its rate against the baseline, its own evidence and charts."""

    attack: LinkageAttack
    compared: Compared
    #: The metric's own fields of its details model (beyond :class:`LinkageDetails`').
    evidence: dict[str, Any]
    charts: tuple[dict[str, Any], ...]


def worse_mapping(
    ctx: EvaluationContext,
    params: P,
    needs: Mapping[Need, Any],
    one: Callable[[EvaluationContext, P, LinkageAttack, LinkageAttack | None], MappingOutcome],
    details: type[LinkageDetails],
    higher_is_riskier: bool = True,
) -> MetricResult:
    """The rule's result under the mapping worse for the releaser, its interval accounting for the choice.

    ``one(ctx, params, attack, control)`` evaluates the rule under one mapping
    (the attack on the original records, and on the holdout records if it
    ran), with ``params.confidence`` at the Bonferroni level for the number
    of mappings, so the interval of the worse value
    (:func:`policycheck.core.stats.worst_interval`) holds at the rule's
    confidence whichever mapping turns out worse. The evidence shown is the
    worse mapping's; every mapping's value is in ``details.mappings``.
    """
    runs = attacks_by_mapping(needs)

    def evaluate(by_records: dict[str, LinkageAttack], level: float) -> MappingOutcome:
        return one(
            ctx, params.model_copy(update={"confidence": level}), by_records["original"], by_records.get("holdout")
        )

    found = worst_of(
        list(runs.values()), params.confidence, evaluate, lambda o: o.compared.value, higher_is_worse=higher_is_riskier
    )
    chosen = found.worst
    assert chosen is not None and found.index is not None  # every mapping has a value
    compared = chosen.compared
    interval, borrowed = worst_interval_noted(
        "mapping",
        list(runs),
        [Estimate(o.compared.value, o.compared.interval) for o in found.each],
        found.index,
        "max" if higher_is_riskier else "min",
    )
    evidence = details(
        **attack_evidence(ctx, chosen.attack),
        **chosen.evidence,
        baseline=compared.details,
        mappings={
            mapping: MappingRow(
                value=o.compared.value, interval=o.compared.interval, raw=o.compared.raw, baseline=o.compared.baseline
            )
            for mapping, o in zip(runs, found.each, strict=True)
        },
        bonferroni=bonferroni_note(
            params.confidence, len(runs), "largest" if higher_is_riskier else "smallest", what="mappings"
        ),
    )
    return MetricResult(
        value=compared.value,
        interval=interval,
        confidence=params.confidence,
        details=evidence,
        charts=chosen.charts,
        notes=(*notes(chosen.attack), *(note for note in (borrowed, compared.borrowed) if note)),
        baseline=compared.baseline,
        raw=compared.raw,
        baseline_label=compared.label,
        sample_size=compared.sample_size,
    )
