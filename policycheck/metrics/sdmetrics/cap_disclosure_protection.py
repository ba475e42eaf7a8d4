"""SDMetrics' disclosure protection: the CAP attack's success against a blind guess's (DisclosureProtection, 'cap').

The score is low where the synthetic records under a person's key carry the
person's sensitive values. Part of that holds for anyone: where the
population ties the sensitive values to the keys, a synthesizer that learnt
only the population protects people it never saw no better. ``baseline:
holdout`` measures that part with the holdout records in the real records'
place and reports the difference (below 0: the training records are less
protected than the holdout's); ``baseline: none`` (the default, so that
existing levels keep their meaning) reports SDMetrics' score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.metrics.sdmetrics.common import sdmetrics_metric
from policycheck.release.model import ColumnType, Dataset

CAP_METHOD = Method(
    definition="min((1 - mean CAP) / (1 - 1 / prod nunique(sensitive)), 1), CAP being the share of synthetic records "
    "with a real record's key that carry its sensitive values; continuous columns in 10 equal-width bins; "
    "(baseline: holdout) minus the same score with the holdout records as the real data.",
    source="SDMetrics 0.32 DisclosureProtection ('cap')",
    conventions=(
        Convention(
            topic="chance",
            peer="SDMetrics 0.32",
            theirs="the score against a blind guess",
            ours="the same with baseline: none; baseline: holdout subtracts the score with the holdout records in "
            "the real records' place",
        ),
    ),
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
    baseline: Literal["holdout", "none"] = Field(
        "none",
        description="none: SDMetrics' score; holdout: the score minus the same with the holdout records in the real "
        "records' place (below 0: the training records are less protected than people the synthesizer never saw).",
    )
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
    holdout_score: float | None = detail(
        "Disclosure protection with the holdout records in the real records' place",
        format="share",
        help="1 when undefined (no holdout key in the synthetic data); None without baseline: holdout.",
        default=None,
    )
    holdout_interval: tuple[float, float] | None = detail(
        "Bootstrap interval of the holdout's score", format="data", default=None
    )
    value: float | None = detail(
        "Score minus the holdout's", format="share", help="The score itself without baseline: holdout.", default=None
    )
    value_interval: tuple[float, float] | None = detail("Interval of the value", format="data", default=None)


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
    optional_inputs={"holdout"},
    # baseline: holdout reports a difference of two scores.
    value_range=(-1.0, 1.0),
    knowledge={Knowledge.SYNTHETIC, Knowledge.ORIGINAL_QI},
    column_params=("known_columns", "sensitive_columns", "continuous_columns"),
    holdout_baseline_needs_holdout=True,
    meaning=(
        "How well the synthetic data protects the sensitive columns of a real person whose key columns an "
        "attacker knows, compared with a blind guess: 1 means looking the person's key up in the synthetic data "
        "helps no more than guessing among the sensitive values; lower means the synthetic records with that key "
        "carry the person's true sensitive values. With baseline: holdout, the same score for people the synthetic "
        "data was not made from is subtracted: below 0, the people it was made from are less protected."
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

    holdout = release.holdout if params.baseline == "holdout" else None
    if params.baseline == "holdout" and holdout is None:  # SDMetrics' score is on another scale than the difference
        raise EvaluationError(
            "cap_disclosure_protection with baseline: holdout needs a holdout set, and the release has none "
            "(baseline: none gives SDMetrics' score, which needs levels of its own)."
        )

    def bootstrap(outcome: Any, stream: tuple[Any, ...], level: float) -> tuple[float, float]:
        return stats.bootstrap_interval(
            lambda idx: outcome.score(outcome.cap[idx]),
            outcome.cap.size,
            ctx.rng(*stream),
            params.bootstrap_resamples,
            level,
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
        interval = bootstrap(outcome, ("cap_disclosure_protection", i), level)
        measured = CapProtectionOfSet(
            synthetic=dataset.name,
            score=score,
            interval=interval,
            cap_protection=outcome.cap_protection,
            baseline_protection=outcome.baseline_protection,
            real_records_matched=outcome.matched,
            real_records=outcome.total,
            value=score,
            value_interval=interval,
        )
        if holdout is None:
            return measured
        # The same attack on people the synthesizer never saw (SDMetrics' score with them as the real data).
        control = cap_disclosure(holdout.frame, dataset.frame, known, sensitive, continuous, params.num_discrete_bins)
        control_score = control.score()
        # Undefined (no holdout key in the synthetic data, or one sensitive value only): the lookup tells
        # nothing of anyone never seen, counted as full protection, the conservative side.
        defined = not np.isnan(control_score)
        control_interval = bootstrap(control, ("cap_disclosure_protection", "holdout", i), level) if defined else None
        # Training and holdout records are independent samples: each resample draws both anew.
        difference = stats.bootstrap_difference_interval(
            lambda idx: outcome.score(outcome.cap[idx]),
            outcome.cap.size,
            (lambda idx: control.score(control.cap[idx])) if defined else (lambda idx: 1.0),
            control.cap.size if defined else 0,
            ctx.rng("cap_disclosure_protection", "difference", i),
            params.bootstrap_resamples,
            level,
        )
        return measured.model_copy(
            update={
                "holdout_score": control_score if defined else 1.0,
                "holdout_interval": control_interval or (1.0, 1.0),
                "value": score - (control_score if defined else 1.0),
                "value_interval": difference,
            }
        )

    sets = worst_of_sets(ctx, params.confidence, protection, lambda s: s.value, higher_is_worse=False)
    worst = sets.worst
    assert worst is not None and worst.value is not None and worst.value_interval is not None  # or it raised
    # Without a control, SDMetrics' own pair: its CAP protection and the blind guess's.
    baseline, raw, baseline_label = (
        worst.baseline_protection,
        worst.cap_protection,
        "protection against a blind guess uniform over the sensitive values: 1 - 1/prod nunique",
    )
    if worst.holdout_score is not None:
        baseline, raw, baseline_label = (
            worst.holdout_score,
            worst.score,
            "the score with the holdout records in the real records' place: how well the synthetic data protects "
            "people it never saw",
        )
    return MetricResult(
        value=worst.value,
        interval=worst.value_interval,
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
        baseline=baseline,
        raw=raw,
        baseline_label=baseline_label,
        sample_size=worst.real_records_matched,
    )
