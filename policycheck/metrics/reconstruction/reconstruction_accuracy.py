"""``reconstruction_accuracy``: how often the strongest attack guesses real people's secrets (paper 001).

The partially-informed attacker of paper 001 runs every attack (LP
reconstruction from 3-way conditional queries, sec. 4.2; DCR, random forest
and exact-match majority, sec. 4.3) against every synthetic set; the rule
reports the most accurate pair. Its baseline, reported beside the value, is
the better for the attacker of guessing the most common synthetic secret
(chance) and the same attack on holdout records (the control).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.combinators import (
    AgainstControl,
    Estimate,
    Records,
    against_control,
    bonferroni_note,
    worst_of,
)
from policycheck.metrics.details import Details, detail
from policycheck.metrics.reconstruction.charts import accuracy_chart
from policycheck.metrics.reconstruction.evidence import (
    RECONSTRUCTION_SOURCE,
    REFERENCE,
    ReconstructionDetails,
    WorstPair,
    reconstruction_metric,
    run_evidence,
    synthetic_secrets,
)
from policycheck.metrics.reconstruction.params import ALL_ATTACKS, AttackName, AttackParams
from policycheck.metrics.reconstruction.reconstruction_attacks import ReconstructionRun, attacks_need
from policycheck.metrics.reconstruction.rows import AttackRow, attack_row, majority_guesses
from policycheck.metrics.registry import Method
from policycheck.release.model import Release

METHOD = Method(
    definition="Accuracy of the most accurate (set, attack) pair at inferring the secret of the original records "
    "from their quasi-identifiers: LP linear reconstruction from 3-way conditional queries (HiGHS), exact-match "
    "majority, DCR, random forest; Clopper-Pearson interval at the Bonferroni level.",
    source=RECONSTRUCTION_SOURCE,
)
MAJORITY_WORDS = "guessing the synthetic data's most common secret for everyone"


class AccuracyParams(AttackParams):
    attacks: list[AttackName] = Field(
        ALL_ATTACKS,
        min_length=1,
        description="Attacks to run; the rule's value is the most accurate. lp: linear reconstruction; dcr: "
        "distance to closest record (mode-collapsed); ml: random forest; exact: majority among exact matches.",
    )
    control: bool = Field(
        True, description="Also attack the holdout records (when the release has them) and report the individual part."
    )


class AccuracyBaseline(Details):
    """What the attacker gets without the release's individual information, reported beside the accuracy."""

    value: float = detail("Baseline accuracy", format="share")
    label: str = detail("Baseline")
    majority: float = detail("Guessing the most common synthetic secret", format="share")
    control: float | None = detail("The same attack on holdout records", format="share")
    rule: str = detail("How the baseline is chosen")


class AccuracyDetails(ReconstructionDetails):
    control: bool = detail("Holdout control run")
    baseline: AccuracyBaseline = detail("Baseline")


def accuracy_needs(params: AccuracyParams, release: Release) -> list[Need]:
    """The run on the original records, and on the holdout records when the rule asks for the control."""
    attacks = tuple(params.attacks)
    control = [attacks_need(params, "holdout", attacks)] if params.control and release.holdout is not None else []
    return [attacks_need(params, "original", attacks), *control]


@reconstruction_metric(
    name="reconstruction_accuracy",
    method=METHOD,
    params=AccuracyParams,
    details=AccuracyDetails,
    inputs={"original", "synthetic"},
    optional_inputs={"holdout"},
    value_range=(0.0, 1.0),
    needs=accuracy_needs,
    meaning="The share of real people whose secret the strongest attack guesses correctly from the synthetic "
    "data and everyone's other attributes. Compare it with the baseline of guessing the most common value: "
    "accuracy well above it, and above the same attack on people outside the data, means the release leaks secrets.",
    remedy="Release fewer synthetic records, use a synthesizer that copies fewer real records (or a differentially "
    "private one), or coarsen the quasi-identifiers the attacker can link on.",
    references=(REFERENCE,),
)
def reconstruction_accuracy(ctx: EvaluationContext, params: AccuracyParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Accuracy of the strongest attribute-inference attack on the original records (worst over attacks and sets).

    Each (set, attack) accuracy has a Clopper-Pearson interval at the
    Bonferroni level for the number of alternatives
    (:func:`policycheck.metrics.combinators.worst_of`); the rule reports the
    largest accuracy and the interval of the largest. The baseline is what the
    attacker gets without the release's individual information: the larger of
    guessing the synthetic data's most common secret for everyone and, with a
    holdout, the same attack on the holdout records
    (:func:`policycheck.metrics.combinators.against_control`, reported, not
    subtracted).
    """
    from policycheck.core import stats

    run: ReconstructionRun = needs[attacks_need(params, "original", tuple(params.attacks))]
    control: ReconstructionRun | None = needs.get(attacks_need(params, "holdout", tuple(params.attacks)))
    pairs = worst_of(
        list(run.outcomes), params.confidence, lambda key, level: attack_row(run, control, key, level), _accuracy
    )
    rows, worst = pairs.each, pairs.worst
    assert worst is not None  # every pair has an accuracy
    # Every pair is scored on the same records: the most accurate's Clopper-Pearson interval has both the
    # largest ends, so no end comes from another pair (the note other worst-of rules add cannot arise).
    interval = stats.worst_interval([r.interval for r in rows])
    majority = majority_guesses(run, synthetic_secrets(ctx, run.secret))
    majority_of_worst = next(m.accuracy for m in majority if m.set == worst.set)
    against = _against_the_better_baseline(worst, majority_of_worst, params)
    baseline = against.baseline.rate
    label = (
        f"the same attack ({worst.attack}) on holdout records" if against.baseline.name == "holdout" else MAJORITY_WORDS
    )
    details = AccuracyDetails(
        **run_evidence(ctx, run, control, params),
        attacks=rows,
        baselines=majority,
        worst=WorstPair(set=worst.set, attack=worst.attack),
        control=control is not None,
        bonferroni=bonferroni_note(params.confidence, len(rows), what="(synthetic set, attack) pairs"),
        baseline=AccuracyBaseline(
            value=baseline,
            label=label,
            majority=majority_of_worst,
            control=worst.control_accuracy,
            rule="the larger of the majority guess and the worst attack on holdout records",
        ),
    )
    notes = []
    if interval[0] <= baseline:
        notes.append(
            f"No attack is clearly more accurate than {label} ({baseline:.3f}); the value mostly reflects "
            "population-level inference."
        )
    if control is None:
        notes.append(
            "Accuracy mixes individual leakage with population-level inference; a holdout control separates them."
        )
    if run.missing:
        notes.append(f"{run.missing} original records have no value of {run.secret!r} and are left out.")
    return MetricResult(
        value=worst.accuracy,
        interval=interval,
        confidence=params.confidence,
        details=details,
        charts=(accuracy_chart(rows, details.baseline.majority, control is not None),),
        notes=tuple(notes),
        baseline=baseline,
        baseline_label=label,
        sample_size=run.n,
    )


def _accuracy(row: AttackRow) -> float:
    return row.accuracy


def _against_the_better_baseline(worst: AttackRow, majority: float, params: AccuracyParams) -> AgainstControl[float]:
    """The worst pair's accuracy against the better of the majority guess (chance) and its holdout control.

    The baseline is reported, not subtracted: the value stays the accuracy, with the pair's interval.
    """
    accuracy: dict[Records, float | None] = {"original": worst.accuracy, "holdout": worst.control_accuracy}
    return against_control(
        accuracy.__getitem__,
        float,
        lambda value, baseline, level: Estimate(value, worst.interval),
        params.confidence,
        chance=majority,
        pick="better",
        compare=False,
    )
