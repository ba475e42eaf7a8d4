"""``linkability_risk``: two data sets about the same people joined through the synthetic data.

Giomi et al. 2023, sec. 3.2: the attacker holds two halves of each target's
columns and links them when their closest synthetic records coincide; the
rate, against the same attack on holdout records, is the linkability risk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.metrics.wp29.common import (
    ANONYMETER,
    ANONYMETER_DISTANCE,
    SEEDED_TARGETS,
    fewer_attacks_note,
    frames,
    wp29_metric,
)
from policycheck.metrics.wp29.residual_risk import SetRisk, Wp29Details, risk_of_worst_set

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

    from policycheck.methods.wp29.rates import AttackCounts
    from policycheck.release.model import Release

METHOD = Method(
    definition="(main - control) / (1 - control): targets whose two halves (aux_columns) share one of their "
    "n_neighbors closest synthetic records.",
    source="Giomi et al. 2023, sec. 3.2 (anonymeter)",
    conventions=(
        ANONYMETER_DISTANCE,
        Convention(
            topic="ties",
            peer=ANONYMETER,
            theirs="equal distances in argsort order",
            ours="equal distances in a seeded random order, independent per half",
        ),
        SEEDED_TARGETS,
    ),
)


class LinkabilityParams(Params):
    aux_columns: tuple[list[str], list[str]] | None = Field(
        None,
        description="The two column sets the attacker's two data sets hold, e.g. [[age, sex], [occupation, income]]; "
        "the attacker's quasi-identifiers split in two halves, in order, when omitted.",
    )
    n_neighbors: int = Field(1, ge=1, le=1000, description="Closest synthetic records compared per half.")
    n_attacks: int = Field(500, ge=1, le=1_000_000, description="Original (and holdout) records attacked.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Wilson-score interval.")

    @field_validator("aux_columns")
    @classmethod
    def _non_empty(cls, value: tuple[list[str], list[str]] | None) -> tuple[list[str], list[str]] | None:
        if value is not None and (not value[0] or not value[1]):
            raise ValueError("each of the two auxiliary column sets needs at least one column")
        return value


class LinkabilitySet(SetRisk):
    aux_columns: list[list[str]] = detail("The attacker's two column sets")
    n_neighbors: int = detail("Closest synthetic records compared per half")
    gower: str = detail("Distance")


class LinkabilityDetails(Wp29Details):
    per_set: list[LinkabilitySet] = detail("Each synthetic set")


def check_halves_given(
    params: LinkabilityParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: the two column sets, from ``params.aux_columns`` or two quasi-identifiers or more."""
    if params.aux_columns is not None or len(attacker.quasi_identifiers) >= 2:
        return []
    return [
        (
            ("aux_columns",),
            "linkability_risk needs two auxiliary column sets: give params.aux_columns or at least two of the "
            "attacker's quasi_identifiers to split in halves",
        )
    ]


@wp29_metric(
    name="linkability_risk",
    check=check_halves_given,
    method=METHOD,
    params=LinkabilityParams,
    details=LinkabilityDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("aux_columns",),
    meaning=(
        "How often an attacker holding two data sets about the same people (with different columns) can join a "
        "person's two records through the synthetic data, beyond how often it can for people who were not in the "
        "data. 0 means no better than for outsiders; 1 means every person is linked."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not reproduce individual combinations of the two column sets "
        "(more noise, a differential privacy budget), or release fewer of the linking columns."
    ),
)
def linkability_risk(ctx: EvaluationContext, params: LinkabilityParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Linkability risk (anonymeter): a record's halves joined through nearest synthetic records, beyond the control."""
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.wp29.linkability import linkability

    release = ctx.release
    if params.aux_columns is not None:
        halves = [list(params.aux_columns[0]), list(params.aux_columns[1])]
    else:
        qis = list(ctx.attacker.quasi_identifiers)
        if len(qis) < 2:
            raise EvaluationError(
                "linkability_risk needs two auxiliary column sets: give params.aux_columns or at least two "
                "quasi-identifiers to split in halves."
            )
        halves = [qis[: len(qis) // 2], qis[len(qis) // 2 :]]
    first, second = (fit_gower(frames(release), release.column_types, release.orders, cols) for cols in halves)

    def encoded(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
        return first.encode(frame), second.encode(frame)

    original = encoded(release.original.frame)
    control = encoded(release.holdout.frame) if release.holdout is not None else None

    def run(i: int) -> tuple[AttackCounts, dict[str, Any], list[str]]:
        outcome = linkability(
            original,
            control,
            encoded(release.synthetic[i].frame),
            (first, second),
            params.n_attacks,
            params.n_neighbors,
            ctx.rng("linkability_risk", i),
            ctx.executor,
        )
        extra = {"aux_columns": halves, "n_neighbors": params.n_neighbors, "gower": first.describe()["convention"]}
        return outcome.counts, extra, fewer_attacks_note(outcome.counts.n_attacks, params.n_attacks)

    return risk_of_worst_set(ctx, params.confidence, run, "linkability", LinkabilitySet, LinkabilityDetails)
