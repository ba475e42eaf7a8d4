"""SDMetrics' privacy measures: CAP disclosure protection and DCR baseline protection.

Both are SDMetrics 0.32's definitions (``DisclosureProtection`` with the
'cap' method, ``DCRBaselineProtection``), computed exactly on every record
(no subsampling: SDMetrics' subsampled estimates are biased, peer-tools
guide sec. 6.1), with a seeded bootstrap interval SDMetrics does not give.
Scores are protections: 1 is safest, so rules use ``fail_below``.
See :mod:`policycheck.methods.cap_disclosure` and
:mod:`policycheck.methods.dcr_baseline` for the conventions, including the
distance convention in which SDMetrics' DCR differs from ours.
Missing values: a category of their own for CAP; in the DCR a missing value
against a present one is a full mismatch and two missing values match.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import worst_of_sets
from policycheck.metrics.registry import Method, Params, metric
from policycheck.release.model import ColumnType, Dataset

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.cap_disclosure import CapOutcome


REFERENCES = (
    "SDMetrics 0.32 (DataCebo): DisclosureProtection and DCRBaselineProtection, single_table.privacy.",
    "M. Elliot: Final report on the disclosure risk associated with the synthetic data produced by the SYLLS "
    "team (2014); J. Taub, M. Elliot, M. Pampaka, D. Smith: Differential correct attribution probability for "
    "synthetic data: an exploration, PSD 2018.",
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


class DcrBaselineParams(Params):
    columns: list[str] | None = Field(None, description="Columns the distance uses; all columns when omitted.")
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the bootstrap interval.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind the interval.")


# Both SDMetrics scores are protections: higher is safer, so rules use fail_below.
sdmetrics_metric = partial(
    metric,
    family="sdmetrics",
    inputs={"original", "synthetic"},
    value_range=(0.0, 1.0),
    references=REFERENCES,
    fail_direction="below",
)


# The methods section (registry.Method).
CAP_METHOD = Method(
    definition="min((1 - mean CAP) / (1 - 1 / prod nunique(sensitive)), 1), CAP being the share of synthetic records "
    "with a real record's key that carry its sensitive values; continuous columns in 10 equal-width bins.",
    source="SDMetrics 0.32 DisclosureProtection ('cap')",
)
DCR_BASELINE_METHOD = Method(
    definition="min(median DCR(synthetic to real) / median DCR(random to real), 1), random records uniform over each "
    "column of the real data, with SDMetrics' DCR (the real data's ranges, each term clipped at 1).",
    source="SDMetrics 0.32 DCRBaselineProtection",
)


@sdmetrics_metric(
    name="cap_disclosure_protection",
    method=CAP_METHOD,
    params=CapParams,
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

    def protection(
        i: int, dataset: Dataset, level: float
    ) -> tuple[float, tuple[float, float], CapOutcome, dict[str, Any]]:
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
        entry = {
            "synthetic": dataset.name,
            "score": score,
            "interval": list(interval),
            "cap_protection": outcome.cap_protection,
            "baseline_protection": outcome.baseline_protection,
            "real_records_matched": outcome.matched,
            "real_records": outcome.total,
        }
        return score, interval, outcome, entry

    sets = worst_of_sets(ctx, params.confidence, protection, lambda r: r[0], higher_is_worse=False)
    level, per_set = sets.level, [r[3] for r in sets.per_set]
    score, interval, outcome, chosen = sets.worst
    notes = [
        f"{outcome.total - outcome.matched} of {outcome.total} real records have a key the synthetic data lacks; "
        "SDMetrics' CAP leaves them out."
    ]
    return MetricResult(
        value=score,
        interval=interval,
        confidence=level,
        details={
            "worst_set": chosen["synthetic"],
            "known_columns": known,
            "sensitive_columns": sensitive,
            "binned_columns": continuous,
            "bins": params.num_discrete_bins,
            "formula": "min((1 - mean CAP) / (1 - 1 / prod nunique(sensitive)), 1)",
            "per_set": per_set,
        },
        notes=tuple(notes),
        baseline=outcome.baseline_protection,
        raw=outcome.cap_protection,
        baseline_label="protection against a blind guess uniform over the sensitive values: 1 - 1/prod nunique",
        sample_size=outcome.matched,
    )


@sdmetrics_metric(
    name="dcr_baseline_protection",
    method=DCR_BASELINE_METHOD,
    params=DcrBaselineParams,
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

    def protection(i: int, dataset: Dataset, level: float) -> tuple[float, tuple[float, float], dict[str, Any]]:
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
        entry = {
            "synthetic": dataset.name,
            "score": score,
            "interval": list(interval),
            "median_dcr_synthetic": float(np.median(dcr_syn)),
            "median_dcr_random": float(np.median(dcr_rand)),
            "synthetic_records": int(dcr_syn.size),
            "synthetic_records_copying_a_real_record": int(np.sum(dcr_syn == 0)),
        }
        return score, interval, entry

    sets = worst_of_sets(ctx, params.confidence, protection, lambda r: r[0], higher_is_worse=False)
    level, per_set = sets.level, [r[2] for r in sets.per_set]
    score, interval, chosen = sets.worst
    return MetricResult(
        value=score,
        interval=interval,
        confidence=level,
        details={
            "worst_set": chosen["synthetic"],
            "convention": (
                "SDMetrics' Gower DCR: numeric |x - y| / R with R the real data's range only, clipped at 1; a numeric "
                "column constant in the real data compares by equality; categorical 0/1; missing vs present 1, both "
                "missing 0; mean over columns. Ours (membership family) takes R over every set and does not clip."
            ),
            "random_data": "per column: integers uniform on [min, max], floats uniform on [min, max), others uniform "
            "over the real distinct values; the real missing share kept; as many records as the synthetic set",
            "per_set": per_set,
        },
        baseline=chosen["median_dcr_random"],
        raw=chosen["median_dcr_synthetic"],
        baseline_label="median distance to the closest real record of uniformly random records of the same schema",
        sample_size=chosen["synthetic_records"],
    )
