"""SDMetrics' disclosure protection: the CAP attack's success against a blind guess's (DisclosureProtection, 'cap')."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Method, Params
from policycheck.metrics.sdmetrics.common import sdmetrics_metric
from policycheck.release.model import ColumnType, Dataset

CAP_METHOD = Method(
    definition="min((1 - mean CAP) / (1 - 1 / prod nunique(sensitive)), 1), CAP being the share of synthetic records "
    "with a real record's key that carry its sensitive values; continuous columns in 10 equal-width bins.",
    source="SDMetrics 0.32 DisclosureProtection ('cap')",
)


class CapParams(Params):
    known_columns: list[str] | None = Field(
        None, description="Columns the attacker knows (the key); the attacker's quasi-identifiers when omitted."
    )
    sensitive_columns: list[str] | None = Field(
        None, description="Columns the attacker wants to learn; the attacker's secrets when omitted."
    )
    continuous_columns: list[str] | None = Field(
        None,
        description="Columns cut into equal-width bins before matching; the numeric known and sensitive columns "
        "when omitted.",
    )
    num_discrete_bins: int = Field(10, ge=1, le=1000, description="Bins per continuous column.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the bootstrap interval.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind the interval.")


class CapProtectionOfSet(Details):
    """Disclosure protection of one synthetic set."""

    synthetic: str = detail("Synthetic set")
    score: float = detail("Disclosure protection", format="share")
    interval: tuple[float, float] = detail("Bootstrap interval of the score", format="data")
    cap_protection: float = detail("CAP protection: 1 - mean CAP", format="share")
    baseline_protection: float = detail("Blind-guess protection: 1 - 1 / prod nunique(sensitive)", format="share")
    real_records_matched: int = detail("Real records whose key the synthetic data holds", unit="records")
    real_records: int = detail("Real records", unit="records")


class CapDisclosureProtectionDetails(Details):
    worst_set: str = detail("Least protective synthetic set")
    known_columns: list[str] = detail("Known (key) columns", format="data")
    sensitive_columns: list[str] = detail("Sensitive columns", format="data")
    binned_columns: list[str] = detail("Columns cut into equal-width bins", format="data")
    bins: int = detail("Bins per binned column", unit="bins")
    formula: str = detail("Formula", default="min((1 - mean CAP) / (1 - 1 / prod nunique(sensitive)), 1)")
    per_set: list[CapProtectionOfSet] = detail("Per synthetic set", format="data")


@sdmetrics_metric(
    name="cap_disclosure_protection",
    method=CAP_METHOD,
    params=CapParams,
    details=CapDisclosureProtectionDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("known_columns", "sensitive_columns", "continuous_columns"),
    meaning=(
        "How well the synthetic data protects the sensitive columns of a real person whose key columns an "
        "attacker knows, compared with a blind guess: 1 means looking the person's key up in the synthetic data "
        "helps no more than guessing among the sensitive values; lower means the synthetic records with that key "
        "carry the person's true sensitive values."
    ),
    remedy=(
        "Regenerate with a synthesizer that does not tie the sensitive columns to rare key combinations (more "
        "noise, a differential privacy budget), or coarsen the key or sensitive columns."
    ),
)
def cap_disclosure_protection(ctx: EvaluationContext, params: CapParams, needs: Mapping[Need, Any]) -> MetricResult:
    """SDMetrics' disclosure protection: min((1 - mean CAP) / (1 - 1/prod nunique(sensitive)), 1)."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.cap_disclosure import cap_disclosure

    release = ctx.release
    known = params.known_columns or list(ctx.attacker.quasi_identifiers)
    sensitive = params.sensitive_columns or list(ctx.attacker.secrets)
    if not known or not sensitive:
        raise EvaluationError("cap_disclosure_protection needs known and sensitive columns (params or attacker model).")
    used = [*known, *sensitive]
    continuous = (
        params.continuous_columns
        if params.continuous_columns is not None
        else [c for c in used if release.column_types[c] is ColumnType.NUMERIC]
    )

    def protection(i: int, dataset: Dataset, level: float) -> CapProtectionOfSet:
        outcome = cap_disclosure(
            release.original.frame, dataset.frame, known, sensitive, continuous, params.num_discrete_bins
        )
        score = outcome.score()
        if np.isnan(score):
            raise EvaluationError(
                f"Disclosure protection is undefined on {dataset.name}: "
                + (
                    "the sensitive columns take one value only."
                    if outcome.baseline_protection == 0
                    else "no real record's key occurs in the synthetic data."
                )
            )
        rng = ctx.rng("cap_disclosure_protection", i)
        interval = stats.bootstrap_interval(
            lambda idx: outcome.score(outcome.cap[idx]), outcome.cap.size, rng, params.bootstrap_resamples, level
        )
        return CapProtectionOfSet(
            synthetic=dataset.name,
            score=score,
            interval=interval,
            cap_protection=outcome.cap_protection,
            baseline_protection=outcome.baseline_protection,
            real_records_matched=outcome.matched,
            real_records=outcome.total,
        )

    sets = worst_of_sets(ctx, params.confidence, protection, lambda s: s.score, higher_is_worse=False)
    worst = sets.worst
    assert worst is not None  # every set has a score, or its measurement raised
    return MetricResult(
        value=worst.score,
        interval=worst.interval,
        confidence=sets.level,
        details=CapDisclosureProtectionDetails(
            worst_set=worst.synthetic,
            known_columns=known,
            sensitive_columns=sensitive,
            binned_columns=continuous,
            bins=params.num_discrete_bins,
            per_set=sets.per_set,
        ),
        notes=(
            f"{worst.real_records - worst.real_records_matched} of {worst.real_records} real records have a key the "
            "synthetic data lacks; SDMetrics' CAP leaves them out.",
        ),
        baseline=worst.baseline_protection,
        raw=worst.cap_protection,
        baseline_label="protection against a blind guess uniform over the sensitive values: 1 - 1/prod nunique",
        sample_size=worst.real_records_matched,
    )
