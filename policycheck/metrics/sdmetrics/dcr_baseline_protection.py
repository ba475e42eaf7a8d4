"""SDMetrics' DCR baseline protection: synthetic records' distance to the real ones against random records'.

The score is low where the synthetic records sit closer to the real ones than
random records of the same schema do. Real records of a dense population sit
that close to each other too: a fresh sample of people the synthesizer never
saw scores near 0 on such data (0.04 on 5,000 diamonds of ggplot2's table,
where copies score 0 and a 1% jitter 0.003), so the score cannot tell copying
from realism there. ``baseline: holdout`` puts the holdout records in the
random records' place: 1 means the synthetic records sit no closer to the
training records than people the synthesizer never saw; ``baseline: random``
(the default, so that existing levels keep their meaning) is SDMetrics' score.
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

DCR_BASELINE_METHOD = Method(
    definition="min(median DCR(synthetic to real) / median DCR(random to real), 1), random records uniform over each "
    "column of the real data, with SDMetrics' DCR (the real data's ranges, each term clipped at 1); (baseline: "
    "holdout) the holdout records in the random records' place.",
    source="SDMetrics 0.32 DCRBaselineProtection",
    conventions=(
        Convention(
            topic="baseline records",
            peer="SDMetrics 0.32",
            theirs="random records, uniform over each real column",
            ours="the same with baseline: random; baseline: holdout takes the holdout records, real people the "
            "synthesizer never saw",
        ),
    ),
)


#: How SDMetrics draws its random records (baseline: random).
RANDOM_RECORDS = (
    "per column: integers uniform on [min, max], floats uniform on [min, max), others uniform over the real "
    "distinct values; the real missing share kept; as many records as the synthetic set"
)


class DcrBaselineParams(Params):
    columns: list[str] | None = Field(None, description="Columns the distance uses; all columns when omitted.")
    baseline: Literal["random", "holdout"] = Field(
        "random",
        description="random: SDMetrics' score, against random records of the real data's schema; holdout: against "
        "the holdout records (1: the synthetic records sit no closer to the training records than real people the "
        "synthesizer never saw).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the bootstrap interval.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind the interval.")


class DcrBaselineOfSet(Details):
    """DCR baseline protection of one synthetic set."""

    synthetic: str = detail("Synthetic set")
    score: float = detail("DCR baseline protection", format="share")
    interval: tuple[float, float] = detail("Bootstrap interval of the score", format="data")
    median_dcr_synthetic: float = detail("Median DCR of the synthetic records")
    median_dcr_random: float | None = detail(
        "Median DCR of the random records", help="None with baseline: holdout.", default=None
    )
    median_dcr_holdout: float | None = detail(
        "Median DCR of the holdout records", help="None with baseline: random.", default=None
    )
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
    random_data: str | None = detail("Random records", help="None with baseline: holdout.", default=RANDOM_RECORDS)
    per_set: list[DcrBaselineOfSet] = detail("Per synthetic set", format="data")


@sdmetrics_metric(
    name="dcr_baseline_protection",
    method=DCR_BASELINE_METHOD,
    release_level_membership=True,
    params=DcrBaselineParams,
    details=DcrBaselineProtectionDetails,
    optional_inputs={"holdout"},
    knowledge={Knowledge.SYNTHETIC},
    column_params=("columns",),
    holdout_baseline_needs_holdout=True,
    meaning=(
        "How far the synthetic records lie from the real ones compared with random records of the same "
        "schema: the median distance to the closest real record, synthetic over random, capped at 1. 1 means "
        "the synthetic records are no closer to real people than random ones; near 0 means they sit on top of "
        "real records. With baseline: holdout, compared with the holdout records instead: near 0 means they sit "
        "closer to the training records than people the synthesizer never saw."
    ),
    remedy=(
        "Regenerate with a synthesizer that copies less (fewer training epochs, more noise, a differential privacy "
        "budget), and remove synthetic records that copy real ones."
    ),
)
def dcr_baseline_protection(
    ctx: EvaluationContext, params: DcrBaselineParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """SDMetrics' DCR baseline protection: min(median DCR(synthetic) / median DCR(baseline records), 1).

    The baseline records are SDMetrics' random ones, or (``baseline: holdout``)
    the holdout records: the DCR of a real person the synthesizer never saw.
    """
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.dcr_baseline import fit_reference, median_ratio, sdmetrics_dcr, uniform_random_records

    release = ctx.release
    columns = params.columns or release.columns
    numeric = [release.column_types[c] is ColumnType.NUMERIC for c in columns]
    real = release.original.frame[columns]
    holdout = release.holdout.frame[columns] if release.holdout is not None else None
    if params.baseline == "holdout" and holdout is None:
        raise EvaluationError(
            "dcr_baseline_protection with baseline: holdout needs a holdout set, and the release has none "
            "(baseline: random gives SDMetrics' score, which needs levels of its own)."
        )
    holdout_dcr = None
    if holdout is not None and params.baseline == "holdout":
        # The holdout records' DCRs do not depend on the synthetic set: measured once, on an encoding of the
        # real and holdout records alone (the distances are the same under any set's category codes).
        enc = fit_reference([real, holdout], real, columns, numeric)
        holdout_dcr = sdmetrics_dcr(enc.encode(holdout), enc.encode(real), enc.kinds, ctx.executor)

    def baseline_dcr(i: int, synthetic: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        """The encoding of this set's distances, the real records encoded, and the baseline records' DCRs."""
        if holdout_dcr is not None:
            enc = fit_reference([real, synthetic], real, columns, numeric)
            return enc, enc.encode(real), holdout_dcr
        random = uniform_random_records(
            real,
            len(synthetic),
            ctx.rng("dcr_baseline_protection", "random", i),
            ctx.rng("dcr_baseline_protection", "mask", i),
        )
        enc = fit_reference([real, synthetic, random], real, columns, numeric)
        x_real = enc.encode(real)
        return enc, x_real, sdmetrics_dcr(enc.encode(random), x_real, enc.kinds, ctx.executor)

    def protection(i: int, dataset: Dataset, level: float) -> DcrBaselineOfSet:
        synthetic = dataset.frame[columns]
        enc, x_real, dcr_base = baseline_dcr(i, synthetic)
        label = f"dcr_baseline_protection({dataset.name})"
        dcr_syn = sdmetrics_dcr(
            enc.encode(synthetic), x_real, enc.kinds, ctx.executor, lambda d, t: ctx.progress(label, d, t)
        )
        score = median_ratio(dcr_syn, dcr_base)
        if np.isnan(score):
            raise EvaluationError(
                f"DCR baseline protection is undefined on {dataset.name}: "
                + (
                    "half the holdout records copy a training record, so on data this coarse the median distance "
                    "cannot tell a copy from chance (exact_copy_share compares copies with the holdout's chance "
                    "matches)."
                    if params.baseline == "holdout"
                    else "half the random records copy a real record."
                )
            )
        rng = ctx.rng("dcr_baseline_protection", "bootstrap", i)

        def resampled(idx: np.ndarray) -> float:
            # The synthetic and the baseline records are independent samples: each resample draws both anew.
            return median_ratio(dcr_syn[idx], dcr_base[rng.integers(0, dcr_base.size, dcr_base.size)])

        interval = stats.bootstrap_interval(resampled, dcr_syn.size, rng, params.bootstrap_resamples, level)
        median_base = float(np.median(dcr_base))
        return DcrBaselineOfSet(
            synthetic=dataset.name,
            score=score,
            interval=interval,
            median_dcr_synthetic=float(np.median(dcr_syn)),
            median_dcr_random=median_base if params.baseline == "random" else None,
            median_dcr_holdout=median_base if params.baseline == "holdout" else None,
            synthetic_records=int(dcr_syn.size),
            synthetic_records_copying_a_real_record=int(np.sum(dcr_syn == 0)),
        )

    sets = worst_of_sets(ctx, params.confidence, protection, lambda s: s.score, higher_is_worse=False)
    worst = sets.worst
    assert worst is not None  # every set has a score, or its measurement raised
    by_holdout = params.baseline == "holdout"
    return MetricResult(
        value=worst.score,
        interval=worst.interval,
        confidence=sets.level,
        details=DcrBaselineProtectionDetails(
            worst_set=worst.synthetic,
            random_data=None if by_holdout else RANDOM_RECORDS,
            per_set=sets.per_set,
        ),
        baseline=worst.median_dcr_holdout if by_holdout else worst.median_dcr_random,
        raw=worst.median_dcr_synthetic,
        baseline_label=(
            "median distance to the closest training record of the holdout records, real people the synthesizer "
            "never saw"
            if by_holdout
            else "median distance to the closest real record of uniformly random records of the same schema"
        ),
        sample_size=worst.synthetic_records,
    )
