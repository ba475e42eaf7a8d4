"""Combinators every family shares: the worst of several synthetic sets, at the Bonferroni level.

A release discloses what its most disclosive set does, so a rule over several
synthetic sets reports the worst; as that is the worst of k intervals, each is
taken at the Bonferroni level 1 - (1 - confidence) / k
(:func:`policycheck.core.stats.bonferroni`), so the one reported holds at the
rule's confidence. :func:`worst_of_sets` measures and picks;
:class:`BonferroniNote` is the evidence a report prints about it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from policycheck.metrics.details import Details, detail

if TYPE_CHECKING:
    from policycheck.metrics.base import EvaluationContext
    from policycheck.release.model import Dataset


class BonferroniNote(Details):
    """How a rule over several sets (or attacks) keeps its confidence: each interval at the Bonferroni level."""

    alternatives: int = detail("Intervals the worst is taken from", unit="sets or attacks")
    level: float = detail("Confidence of each interval", format="share")
    rule: str = detail("How the rule's interval is formed")


def bonferroni_note(
    confidence: float, alternatives: int, worst: str = "largest", what: str = "synthetic sets"
) -> BonferroniNote:
    """The Bonferroni level of ``alternatives`` intervals, and the rule in words."""
    from policycheck.core import stats

    return BonferroniNote(
        alternatives=alternatives,
        level=stats.bonferroni(confidence, alternatives),
        rule=f"each of the {alternatives} {what}' intervals at 1 - (1 - {confidence}) / {alternatives} (Bonferroni); "
        f"the rule's interval runs from the {worst} lower end to the {worst} upper end",
    )


#: What a metric measures on one synthetic set (see :func:`worst_of_sets`).
T = TypeVar("T")


@dataclass(frozen=True)
class WorstOfSets(Generic[T]):
    """Every synthetic set's measurement, in the release's order, and the worst of them."""

    #: Confidence of each set's interval: the rule's, Bonferroni-corrected over the sets.
    level: float
    per_set: list[T]
    #: None when no set could be measured.
    worst: T | None


def worst_of_sets(
    ctx: EvaluationContext,
    confidence: float,
    measure: Callable[[int, Dataset, float], T],
    score: Callable[[T], float | None],
    higher_is_worse: bool = True,
) -> WorstOfSets[T]:
    """Measure every synthetic set at the Bonferroni level and pick the worst.

    A release discloses what its most disclosive set does, so a rule reports
    the worst set; as that is the worst of k intervals, each is taken at the
    Bonferroni level (:func:`policycheck.core.stats.bonferroni`), so the one
    reported holds at the rule's confidence. ``measure(i, set, level)``
    measures set ``i``; ``score`` gives the number compared (None: the set
    could not be measured and is passed over); ``higher_is_worse`` is False
    for protections, where the lowest is worst. Of equal scores the first
    set's wins.
    """
    import numpy as np

    from policycheck.core.stats import bonferroni

    sets = ctx.release.synthetic
    level = bonferroni(confidence, len(sets))
    per_set = [measure(i, dataset, level) for i, dataset in enumerate(sets)]
    scored = [(value, m) for m in per_set if (value := score(m)) is not None]
    if not scored:
        return WorstOfSets(level, per_set, None)
    values = [value for value, _ in scored]
    worst = np.argmax(values) if higher_is_worse else np.argmin(values)
    return WorstOfSets(level, per_set, scored[int(worst)][1])
