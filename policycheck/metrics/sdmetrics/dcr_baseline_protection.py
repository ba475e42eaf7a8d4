"""SDMetrics' DCR baseline protection: synthetic records' distance to the real ones against random records'."""

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

DCR_BASELINE_METHOD = Method(
    definition="min(median DCR(synthetic to real) / median DCR(random to real), 1), random records uniform over each "
    "column of the real data, with SDMetrics' DCR (the real data's ranges, each term clipped at 1).",
    source="SDMetrics 0.32 DCRBaselineProtection",
)


class DcrBaselineParams(Params):
    columns: list[str] | None = Field(None, description="Columns the distance uses; all columns when omitted.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the bootstrap interval.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind the interval.")


class DcrBaselineOfSet(Details):
    """DCR baseline protection of one synthetic set."""

    synthetic: str = detail("Synthetic set")
    score: float = detail("DCR baseline protection", format="share")
    interval: tuple[float, float] = detail("Bootstrap interval of the score", format="data")
    median_dcr_synthetic: float = detail("Median DCR of the synthetic records")
    median_dcr_random: float = detail("Median DCR of the random records")
    synthetic_records: int = detail("Synthetic records", unit="records")
    synthetic_records_copying_a_real_record: int = detail(
        "Synthetic records copying a real record", unit="records", help="DCR 0 on the columns used."
    )


class DcrBaselineProtectionDetails(Details):
    worst_set: str = detail("Least protective synthetic set")
    convention: str = detail(
        "Distance convention",
        default=(
            "SDMetrics' Gower DCR: numeric |x - y| / R with R the real data's range only, clipped at 1; a numeric "
            "column constant in the real data compares by equality; categorical 0/1; missing vs present 1, both "
            "missing 0; mean over columns. Ours (membership family) takes R over every set and does not clip."
        ),
    )
    random_data: str = detail(
        "Random records",
        default="per column: integers uniform on [min, max], floats uniform on [min, max), others uniform "
        "over the real distinct values; the real missing share kept; as many records as the synthetic set",
    )
    per_set: list[DcrBaselineOfSet] = detail("Per synthetic set", format="data")


@sdmetrics_metric(
    name="dcr_baseline_protection",
    method=DCR_BASELINE_METHOD,
    params=DcrBaselineParams,
    details=DcrBaselineProtectionDetails,
    knowledge={Knowledge.SYNTHETIC},
    column_params=("columns",),
    meaning=(
        "How far the synthetic records lie from the real ones compared with random records of the same "
        "schema: the median distance to the closest real record, synthetic over random, capped at 1. 1 means "
        "the synthetic records are no closer to real people than random ones; near 0 means they sit on top of "
        "real records."
    ),
    remedy=(
        "Regenerate with a synthesizer that copies less (fewer training epochs, more noise, a differential privacy "
        "budget), and remove synthetic records that copy real ones."
    ),
)
def dcr_baseline_protection(
    ctx: EvaluationContext, params: DcrBaselineParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """SDMetrics' DCR baseline protection: min(median DCR(synthetic) / median DCR(random), 1)."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.dcr_baseline import fit_reference, median_ratio, sdmetrics_dcr, uniform_random_records

    release = ctx.release
    columns = params.columns or release.columns
    numeric = [release.column_types[c] is ColumnType.NUMERIC for c in columns]
    real = release.original.frame[columns]

    def protection(i: int, dataset: Dataset, level: float) -> DcrBaselineOfSet:
        synthetic = dataset.frame[columns]
        random = uniform_random_records(
            real,
            len(synthetic),
            ctx.rng("dcr_baseline_protection", "random", i),
            ctx.rng("dcr_baseline_protection", "mask", i),
        )
        enc = fit_reference([real, synthetic, random], real, columns, numeric)
        x_real = enc.encode(real)
        label = f"dcr_baseline_protection({dataset.name})"
        dcr_syn = sdmetrics_dcr(
            enc.encode(synthetic), x_real, enc.kinds, ctx.executor, lambda d, t: ctx.progress(label, d, t)
        )
        dcr_rand = sdmetrics_dcr(enc.encode(random), x_real, enc.kinds, ctx.executor)
        score = median_ratio(dcr_syn, dcr_rand)
        if np.isnan(score):
            raise EvaluationError(
                f"DCR baseline protection is undefined on {dataset.name}: half the random records copy a real record."
            )
        rng = ctx.rng("dcr_baseline_protection", "bootstrap", i)

        def resampled(idx: np.ndarray) -> float:
            return median_ratio(dcr_syn[idx], dcr_rand[rng.integers(0, dcr_rand.size, dcr_rand.size)])

        interval = stats.bootstrap_interval(resampled, dcr_syn.size, rng, params.bootstrap_resamples, level)
        return DcrBaselineOfSet(
            synthetic=dataset.name,
            score=score,
            interval=interval,
            median_dcr_synthetic=float(np.median(dcr_syn)),
            median_dcr_random=float(np.median(dcr_rand)),
            synthetic_records=int(dcr_syn.size),
            synthetic_records_copying_a_real_record=int(np.sum(dcr_syn == 0)),
        )

    sets = worst_of_sets(ctx, params.confidence, protection, lambda s: s.score, higher_is_worse=False)
    worst = sets.worst
    assert worst is not None  # every set has a score, or its measurement raised
    return MetricResult(
        value=worst.score,
        interval=worst.interval,
        confidence=sets.level,
        details=DcrBaselineProtectionDetails(worst_set=worst.synthetic, per_set=sets.per_set),
        baseline=worst.median_dcr_random,
        raw=worst.median_dcr_synthetic,
        baseline_label="median distance to the closest real record of uniformly random records of the same schema",
        sample_size=worst.synthetic_records,
    )
