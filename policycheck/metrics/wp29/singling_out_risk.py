"""``singling_out_risk``: statements written from the synthetic data that single out one real person.

Giomi et al. 2023, sec. 3.1 (after Cohen and Nissim 2020): a predicate that
matches exactly one synthetic record is a bet that it matches exactly one
original record too; the rate of winning bets, against the same predicates on
holdout records, is the singling-out risk.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.metrics.wp29.common import ANONYMETER, wp29_metric
from policycheck.metrics.wp29.residual_risk import SetRisk, Wp29Details, risk_of_worst_set
from policycheck.release.model import ColumnType

if TYPE_CHECKING:
    from policycheck.methods.wp29.rates import AttackCounts

METHOD = Method(
    definition="(main - control) / (1 - control) of the Article 29 WP singling-out attack: predicates written "
    "from the synthetic data that isolate exactly one original record, the holdout as control; Wilson score.",
    source="Giomi et al. 2023, sec. 3.1 (anonymeter)",
    conventions=(
        Convention(
            topic="denominator",
            peer=ANONYMETER,
            theirs="rates divided by n_attacks even when fewer predicates were made",
            ours="divided by the predicates made (equal when all are made)",
        ),
    ),
)


class SinglingOutParams(Params):
    mode: Literal["univariate", "multivariate"] = Field(
        "multivariate",
        description="univariate: one column's rare or extreme value per predicate; multivariate: n_cols columns of a "
        "synthetic record.",
    )
    n_attacks: int = Field(500, ge=1, le=100_000, description="Singling-out predicates to make.")
    n_cols: int = Field(3, ge=1, le=50, description="Columns per multivariate predicate.")
    columns: list[str] | None = Field(None, description="Columns the predicates may use; all columns when omitted.")
    max_attempts: int = Field(
        100_000,
        ge=1,
        description="Most multivariate predicates tried before giving up (anonymeter's default is 10^7; fewer "
        "predicates than requested are reported in the notes).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Wilson-score interval.")


class SinglingOutSet(SetRisk):
    mode: str = detail("Predicates", help="univariate or multivariate")
    attempts: int = detail("Predicates tried", unit="predicates")
    predicates_requested: int = detail("Predicates requested", unit="predicates")
    example_predicates_singling_out: list[str] = detail("Predicates that single out an original record")


class SinglingOutDetails(Wp29Details):
    per_set: list[SinglingOutSet] = detail("Each synthetic set")


@wp29_metric(
    name="singling_out_risk",
    method=METHOD,
    params=SinglingOutParams,
    details=SinglingOutDetails,
    knowledge={Knowledge.SYNTHETIC},
    column_params=("columns",),
    meaning=(
        'How often a statement written from the synthetic data alone ("the only person aged 84 with a doctorate '
        'in this county") picks out exactly one real person of the original data, beyond how often it does so '
        "for people who were not in the data. 0 means no more than chance; 1 means every such statement does."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not reproduce rare combinations (more noise, a differential "
        "privacy budget, coarser rare categories or top-coded extremes)."
    ),
)
def singling_out_risk(ctx: EvaluationContext, params: SinglingOutParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Singling-out risk (anonymeter): synthetic predicates that isolate one original record, beyond the control."""
    from policycheck.methods.wp29.singling_out import singling_out

    release = ctx.release
    columns = params.columns or release.columns
    numeric = [release.column_types[c] is ColumnType.NUMERIC for c in columns]
    control = release.holdout.frame if release.holdout is not None else None

    def run(i: int) -> tuple[AttackCounts, dict[str, Any], list[str]]:
        syn = release.synthetic[i]
        outcome = singling_out(
            release.original.frame,
            syn.frame,
            control,
            columns,
            numeric,
            params.mode,
            params.n_attacks,
            params.n_cols,
            params.max_attempts,
            ctx.rng("singling_out_risk", params.mode, i),
            ctx.executor,
        )
        notes = []
        if outcome.counts.n_attacks == 0:
            raise EvaluationError(
                f"No {params.mode} predicate singles out a record of {syn.name} in {outcome.attempts} attempts, so "
                "no singling-out attack could be made."
            )
        if outcome.counts.n_attacks < params.n_attacks:
            notes.append(
                f"Only {outcome.counts.n_attacks} of the {params.n_attacks} requested {params.mode} predicates single "
                f"out a record of {syn.name} ({outcome.attempts} attempts); the rates divide by the predicates made "
                "(anonymeter divides by the number requested, which understates the risk)."
            )
        if outcome.control_correction is not None:
            notes.append(
                f"The holdout and the original differ in size; the control count was scaled by "
                f"{outcome.control_correction:.4g} (anonymeter's fitted size correction)."
            )
        extra = {
            "mode": params.mode,
            "attempts": outcome.attempts,
            "predicates_requested": params.n_attacks,
            "example_predicates_singling_out": outcome.singled_out_originals[:10],
        }
        return outcome.counts, extra, notes

    return risk_of_worst_set(ctx, params.confidence, run, "singling out", SinglingOutSet, SinglingOutDetails)
