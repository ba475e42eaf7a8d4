"""The rule's number from every set's marginal errors: the worst set, and an interval when triples are sampled.

Every triple measured, the value is exact and has no interval. With a seeded
sample of triples (``n_triples``) the value estimates the mean over every
triple: each set gets a bootstrap interval over its sampled triples at the
Bonferroni level of the sets, and the rule's interval runs from the largest
lower end to the largest upper end (:func:`policycheck.core.stats.worst_interval`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, MetricResult
from policycheck.metrics.combinators import (
    BonferroniNote,
    Estimate,
    bonferroni_note,
    worst_of_sets,
    worst_set_interval,
)
from policycheck.metrics.details import Details, detail
from policycheck.metrics.utility.charts import error_histogram
from policycheck.metrics.utility.common import MarginalParams, analysed_columns
from policycheck.release.model import Dataset

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.utility import MarginalErrors

Which = Literal["mre", "tvd"]


class MarginalDetails(Details):
    """What both marginal metrics report; the MRE adds its cells."""

    per_set: dict[str, float | None] = detail(
        "Per synthetic set", format="data", help="None where no cell of the original exceeds min_count."
    )
    worst_set: str = detail("Worst synthetic set")
    triples: int = detail("Column triples measured", unit="triples")
    numeric_bins: int = detail("Quantile bins per numeric column", unit="bins")
    missing_values: str = detail(
        "Missing values", default="a missing value is a category of its own, in numeric columns too"
    )
    bonferroni: BonferroniNote | None = detail(
        "Bonferroni correction over the sets", format="data", help="Only when triples are sampled."
    )


@dataclass(frozen=True)
class SetError:
    """One synthetic set's error, and its bootstrap interval when the triples are a sample."""

    synthetic: str
    #: NaN: no cell of the original exceeds min_count (MRE only).
    value: float
    errors: MarginalErrors
    interval: tuple[float, float] | None


@dataclass(frozen=True)
class WorstSet:
    """Every set's error, the worst set's, and the rule's interval when the triples are a sample."""

    per_set: dict[str, float | None]
    worst: SetError
    interval: tuple[float, float] | None
    #: The rule's confidence, when it has an interval.
    confidence: float | None
    bonferroni: BonferroniNote | None
    #: Whose sets' intervals the rule's interval takes an end from, where not the worst set's.
    borrowed: str | None = None


def worst_set_error(
    ctx: EvaluationContext, params: MarginalParams, per_set: list[MarginalErrors], which: Which
) -> WorstSet:
    """The worst set's MRE or TVD (sec. 5.3), and the rule's interval when the triples are a sample."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.utility import count_triples

    # The triples are a sample: the value estimates the mean over every triple.
    sampled = params.n_triples is not None and params.n_triples < count_triples(
        len(analysed_columns(params, ctx.release))
    )

    def error(i: int, dataset: Dataset, level: float) -> SetError:
        errors = per_set[i]
        value = errors.mre if which == "mre" else errors.mean_tvd
        interval = None
        if sampled and not np.isnan(value):
            interval = _bootstrap(errors, which, ctx.rng("utility", which, "bootstrap", i), level)
        return SetError(dataset.name, value, errors, interval)

    sets = worst_of_sets(ctx, params.confidence, error, lambda s: None if np.isnan(s.value) else s.value)
    if sets.worst is None:
        # NOTE: check_mre_params refuses this before running when every triple is
        # measured; with n_triples the triples are drawn from the run's seed, so
        # whether the drawn ones hold such a cell is known only here.
        raise EvaluationError(
            f"no 3-way marginal cell of the original has more than min_count={params.min_count} records: "
            "lower min_count"
        )
    interval, confidence, bonferroni, borrowed = None, None, None, None
    if sampled:
        measured = [
            (s, Estimate(s.value, s.interval))
            for s in sets.per_set
            if s.interval is not None and not np.isnan(s.interval[0])
        ]
        names, estimates = [s.synthetic for s, _ in measured], [estimate for _, estimate in measured]
        shown = next((i for i, (s, _) in enumerate(measured) if s is sets.worst), None)
        if shown is None:  # the worst set's resamples gave no interval: the others' ends, with nothing to compare
            interval = stats.worst_interval([e.interval for e in estimates])
        else:
            interval, borrowed = worst_set_interval(names, estimates, shown)
        confidence = params.confidence
        bonferroni = bonferroni_note(params.confidence, len(per_set))
    return WorstSet(
        per_set={s.synthetic: (None if np.isnan(s.value) else float(s.value)) for s in sets.per_set},
        worst=sets.worst,
        interval=interval,
        confidence=confidence,
        bonferroni=bonferroni,
        borrowed=borrowed,
    )


def _bootstrap(errors: MarginalErrors, which: Which, rng: np.random.Generator, level: float) -> tuple[float, float]:
    """Bootstrap interval over the sampled triples of one set's TVD or MRE."""
    import numpy as np

    from policycheck.core import stats

    sampled = len(errors.triples)
    if which == "tvd":

        def stat(idx: np.ndarray) -> float:
            return float(errors.tvd[idx].mean())

    else:
        # Resample triples, pooling their cells as the MRE does.
        bounds = np.concatenate([[0], np.cumsum(errors.cells_per_triple)])
        parts = [errors.abs_relative_error[bounds[i] : bounds[i + 1]] for i in range(sampled)]

        def stat(idx: np.ndarray) -> float:
            pooled = np.concatenate([parts[i] for i in idx])
            return float(pooled.mean()) if pooled.size else float("nan")

    return stats.bootstrap_interval(stat, sampled, rng, confidence=level)


def marginal_result(worst: WorstSet, which: Which, details: Details) -> MetricResult:
    """The worst set's error as the rule's value, with the histogram of its errors."""
    return MetricResult(
        value=float(worst.worst.value),
        interval=worst.interval,
        confidence=worst.confidence,
        details=details,
        charts=error_histogram(worst.worst.errors, which, worst.worst.synthetic),
        sample_size=len(worst.worst.errors.triples) if worst.interval is not None else None,
        notes=(worst.borrowed,) if worst.borrowed else (),
    )
