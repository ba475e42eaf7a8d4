"""``reconstruction_individual_risk``: the part of an attack's accuracy the holdout control does not explain.

The same attacks on holdout records, which the synthesizer never saw, are the
control: what they get is population-level inference. The individual part is
``(acc - acc_control) / (1 - acc_control) = 1 - err / err_control``, as
anonymeter measures its risks against a control (Giomi et al. 2023), with
Koopman's score interval of the ratio of error rates (:mod:`.rows`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.combinators import bonferroni_note, worst_interval_noted, worst_of
from policycheck.metrics.details import detail
from policycheck.metrics.reconstruction.charts import individual_risk_chart
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
from policycheck.metrics.reconstruction.rows import (
    AttackRow,
    attack_row,
    individual_estimate,
    majority_guesses,
    pair_names,
)
from policycheck.metrics.registry import Convention, Method
from policycheck.release.model import Release

METHOD = Method(
    definition="(acc - acc_control) / (1 - acc_control) = 1 - err / err_control for the (set, attack) pair with the "
    "largest risk, the control being the same attack on holdout records; Koopman score interval of the error ratio.",
    source=f"{RECONSTRUCTION_SOURCE}; base rate: sec. 7.2; control as anonymeter's (Giomi et al. 2023)",
    conventions=(
        Convention(
            topic="base rate",
            peer="paper 001, sec. 4.1 and 7.2",
            theirs="the game removes the base rate by randomising each target's secret and re-running the "
            "synthesizer; on a release as given, the attacks' accuracy on the original records "
            "(reconstruction_accuracy, the figure shown as theirs) still holds it",
            ours="the same attacks on holdout records are the control: 1 - err / err_control",
            effect="reconstruction_individual_risk/control",
        ),
    ),
)
INTERVAL_METHOD = (
    "Koopman's score interval of the ratio of error rates err / err_control, mapped through 1 - ratio; "
    "below -1 reported as -1"
)


class IndividualRiskParams(AttackParams):
    attacks: list[AttackName] = Field(
        ALL_ATTACKS, min_length=1, description="Attacks to run; the rule's value is the largest individual risk."
    )


class IndividualRiskDetails(ReconstructionDetails):
    control_records: int = detail(
        "Records in the holdout control",
        unit="records",
        help="the control's denominator: holdout records with a secret",
    )
    interval_method: str = detail("Interval")


def individual_risk_needs(params: IndividualRiskParams, release: Release) -> list[Need]:
    """The run on the original records and its control on the holdout records."""
    attacks = tuple(params.attacks)
    return [attacks_need(params, "original", attacks), attacks_need(params, "holdout", attacks)]


@reconstruction_metric(
    name="reconstruction_individual_risk",
    method=METHOD,
    params=IndividualRiskParams,
    details=IndividualRiskDetails,
    inputs={"original", "synthetic", "holdout"},
    value_range=(None, 1.0),
    needs=individual_risk_needs,
    meaning="How much better the strongest attack guesses real people's secrets than it guesses those of similar "
    "people who were not in the data: 0 means the release reveals nothing about individuals beyond population "
    "trends, 1 means every secret the control misses is revealed.",
    remedy="Use a synthesizer that does not reproduce individual records (e.g. a differentially private one), "
    "release fewer synthetic records, or drop quasi-identifiers that single people out.",
    references=(
        REFERENCE,
        "Giomi et al., A Unified Framework for Quantifying Privacy Risk in Synthetic Data (anonymeter)",
    ),
)
def reconstruction_individual_risk(
    ctx: EvaluationContext, params: IndividualRiskParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Holdout-controlled attribute-inference risk (acc - acc_control) / (1 - acc_control), worst over attacks and sets.

    Each (set, attack) risk has Koopman's score interval at the Bonferroni
    level for the number of alternatives (:func:`policycheck.metrics.combinators.worst_of`,
    :func:`.rows.individual_risk`); the rule reports the largest risk and the
    interval of the largest. ``raw`` is that attack's accuracy and
    ``baseline`` its accuracy on the control.
    """

    if ctx.release.holdout is None:
        raise EvaluationError("reconstruction_individual_risk needs a holdout dataset, and the release has none")
    run: ReconstructionRun = needs[attacks_need(params, "original", tuple(params.attacks))]
    control: ReconstructionRun = needs[attacks_need(params, "holdout", tuple(params.attacks))]
    pairs = worst_of(
        list(run.outcomes), params.confidence, lambda key, level: attack_row(run, control, key, level), _risk
    )
    rows, worst = pairs.each, pairs.worst
    assert worst is not None and worst.individual_risk is not None  # every pair has a control
    assert pairs.index is not None
    interval, borrowed = worst_interval_noted(
        "attack", pair_names(rows), [individual_estimate(r) for r in rows], pairs.index
    )
    details = IndividualRiskDetails(
        **run_evidence(ctx, run, control, params),
        attacks=rows,
        baselines=majority_guesses(run, synthetic_secrets(ctx, run.secret)),
        worst=WorstPair(set=worst.set, attack=worst.attack),
        control_records=control.n,
        bonferroni=bonferroni_note(params.confidence, len(rows), what="(synthetic set, attack) pairs"),
        interval_method=INTERVAL_METHOD,
    )
    notes = [borrowed] if borrowed else []
    if run.missing or control.missing:
        notes.append(
            f"{run.missing} original and {control.missing} holdout records have no value of {run.secret!r} and "
            "are left out."
        )
    return MetricResult(
        value=worst.individual_risk,
        interval=interval,
        confidence=params.confidence,
        details=details,
        charts=(individual_risk_chart(rows),),
        notes=tuple(notes),
        raw=worst.accuracy,
        baseline=worst.control_accuracy,
        baseline_label=f"the same attack ({worst.attack}) on holdout records, which the synthesizer never saw",
        sample_size=run.n,
    )


def _risk(row: AttackRow) -> float | None:
    return row.individual_risk
