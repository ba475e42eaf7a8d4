"""Combinators every family shares: the worst of several alternatives, and an attack against its control.

Worst of several. A release discloses what its most disclosive set does, so a
rule over several synthetic sets reports the worst; as that is the worst of k
intervals, each is taken at the Bonferroni level 1 - (1 - confidence) / k
(:func:`policycheck.core.stats.bonferroni`), so the one reported holds at the
rule's confidence. :func:`worst_of_sets` measures every synthetic set and
picks; :func:`worst_of` does the same over any alternatives (the mappings of
a linkage attack, the (set, attack) pairs of a reconstruction rule);
:class:`BonferroniNote` is the evidence a report prints about it.

Against a control. Part of what an attack gets right it would get for anyone:
the same attack on holdout records, which the synthesizer never saw, measures
that part (the control), and so, less closely, does chance.
:func:`against_control` runs the attack on both record sets, picks the
baseline and combines the two with the family's own statistic (a difference
of rates, a ratio of error rates, anonymeter's residual risk).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Literal, TypeVar

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


def printed_level(confidence: float | None, alternatives: int | None, level: float | None) -> float | None:
    """The level an interval's ends hold at as a report prints them.

    A rule that took the worst of ``alternatives`` intervals (synthetic sets, attacks,
    targets) took each at its Bonferroni ``level`` (:func:`bonferroni_note`), so its ends are
    bounds at that level (97.5% with two sets at 95%); otherwise the rule's ``confidence``.
    """
    if (alternatives or 0) > 1 and level is not None:
        return float(level)
    return float(confidence) if confidence is not None else None


def borrowed_ends_note(
    what: str, names: Sequence[str], estimates: Sequence[Estimate], shown: int, worst: str = "max"
) -> str | None:
    """Where the worst-of interval takes an end from another estimate than the one shown, say whose.

    The interval of the worst of several quantities runs from the worst lower
    end to the worst upper end (:func:`policycheck.core.stats.worst_interval`),
    so an end may come from an estimate other than ``estimates[shown]``: read
    beside that estimate alone it would look like its own interval. None
    when both ends are the shown estimate's.
    """
    pick = max if worst == "max" else min

    def source(side: int) -> int:
        """The estimate whose interval gives this end: the shown one wherever it ties."""
        end = pick(e.interval[side] for e in estimates)
        if estimates[shown].interval[side] == end:
            return shown
        return next(i for i, e in enumerate(estimates) if e.interval[side] == end)

    sources = [source(0), source(1)]
    if sources == [shown, shown]:
        return None

    def whose(i: int) -> str:
        lo, hi = estimates[i].interval
        return f"the {names[i]} {what}'s (estimate {estimates[i].value:.4g}, interval [{lo:.4g}, {hi:.4g}])"

    if sources[0] == sources[1]:
        ends = f"both its ends are {whose(sources[0])}"
    else:
        ends = " and ".join(
            f"its {end} end {estimates[i].interval[side]:.4g} is {whose(i)}"
            for side, (end, i) in enumerate(zip(("lower", "upper"), sources, strict=True))
            if i != shown
        )
    lo, hi = estimates[shown].interval
    return (
        f"The interval holds for the {'larger' if pick is max else 'smaller'} of the {len(names)} {what}s' values, "
        f"whichever it is: {ends}; the estimate shown is the {names[shown]} {what}'s (its own interval "
        f"[{lo:.4g}, {hi:.4g}])."
    )


def worst_interval_noted(
    what: str, names: Sequence[str], estimates: Sequence[Estimate], shown: int, worst: str = "max"
) -> tuple[tuple[float, float], str | None]:
    """The interval of the worst of ``estimates`` (:func:`policycheck.core.stats.worst_interval`), and the
    :func:`borrowed_ends_note` that says whose its ends are where they are not ``estimates[shown]``'s."""
    from policycheck.core.stats import worst_interval

    interval = worst_interval([e.interval for e in estimates], worst)
    return interval, borrowed_ends_note(what, names, estimates, shown, worst)


def worst_set_interval(
    names: Sequence[str], estimates: Sequence[Estimate], shown: int
) -> tuple[tuple[float, float], str | None]:
    """:func:`worst_interval_noted` over synthetic sets (the largest value is the worst), each named in quotes."""
    return worst_interval_noted("synthetic set", [repr(name) for name in names], estimates, shown)


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
    #: The worst set's position in ``per_set`` (None with ``worst``).
    index: int | None = None

    def interval_noted(self, estimate: Callable[[T], tuple[str, Estimate]]) -> tuple[tuple[float, float], str | None]:
        """:func:`worst_set_interval` of every set, ``estimate`` giving each measurement's set name and estimate."""
        assert self.index is not None  # a set was measured
        named = [estimate(measured) for measured in self.per_set]
        return worst_set_interval([name for name, _ in named], [e for _, e in named], self.index)


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
    sets = list(enumerate(ctx.release.synthetic))
    found = worst_of(sets, confidence, lambda item, level: measure(item[0], item[1], level), score, higher_is_worse)
    return WorstOfSets(found.level, found.each, found.worst, found.index)


#: One of the alternatives a rule takes the worst of (see :func:`worst_of`).
A = TypeVar("A")


@dataclass(frozen=True)
class WorstOf(Generic[T]):
    """Every alternative's measurement, in the order given, and the worst of them."""

    #: Confidence of each alternative's interval: the rule's, Bonferroni-corrected over the alternatives.
    level: float
    each: list[T]
    #: None when no alternative could be measured.
    worst: T | None
    #: The worst alternative's position in ``each`` (None with ``worst``).
    index: int | None = None


def worst_of(
    alternatives: Sequence[A],
    confidence: float,
    measure: Callable[[A, float], T],
    score: Callable[[T], float | None],
    higher_is_worse: bool = True,
) -> WorstOf[T]:
    """Measure every alternative at the Bonferroni level and pick the worst (of equal scores, the first).

    As :func:`worst_of_sets`, over any alternatives: ``measure(alternative,
    level)`` measures one with its intervals at ``level``, the rule's
    confidence Bonferroni-corrected for ``len(alternatives)``; ``score`` gives
    the number compared (None: passed over).
    """
    import numpy as np

    from policycheck.core.stats import bonferroni

    level = bonferroni(confidence, len(alternatives))
    each = [measure(alternative, level) for alternative in alternatives]
    scored = [(value, i) for i, m in enumerate(each) if (value := score(m)) is not None]
    if not scored:
        return WorstOf(level, each, None)
    values = [value for value, _ in scored]
    index = scored[int(np.argmax(values) if higher_is_worse else np.argmin(values))][1]
    return WorstOf(level, each, each[index], index)


# ---------------------------------------------------------------- an attack against its control

#: Whose records an attack is run on: the training records the release was made from, or the holdout ones.
Records = Literal["original", "holdout"]
#: What one attack measures on one record set (a count of hits, an accuracy, a success rate).
M = TypeVar("M")


@dataclass(frozen=True)
class Baseline(Generic[M]):
    """What an attacker gets without the release's individual information, on the rate's scale."""

    #: "holdout": the same attack on holdout records (the control); "chance": the family's chance rate.
    name: Literal["holdout", "chance"]
    rate: float
    #: The attack's measurement on the holdout records (the holdout baseline only).
    control: M | None = None


@dataclass(frozen=True)
class Estimate:
    """A statistic's value and its interval."""

    value: float
    interval: tuple[float, float]


@dataclass(frozen=True)
class AgainstControl(Generic[M]):
    """An attack on the training records set against its baseline: what a rule compares, and why."""

    #: The attack's measurement on the training records, and on the holdout records (None: no holdout).
    main: M
    control: M | None
    #: The attack's rate on the training records.
    raw: float
    #: The baseline the value is measured against (of those considered, the better for the attacker).
    baseline: Baseline[M]
    considered: tuple[Baseline[M], ...]
    #: Confidence of the interval against each considered baseline; None when the baseline is reported only.
    level: float | None
    value: float
    interval: tuple[float, float]
    #: Against several baselines: whose comparison gave an end of the interval, where not the shown one's.
    borrowed: str | None = None


def against_control(
    attack: Callable[[Records], M | None],
    rate: Callable[[M], float],
    statistic: Callable[[M, Baseline[M] | None, float], Estimate],
    confidence: float,
    *,
    chance: float | None = None,
    pick: Literal["holdout", "better"] = "holdout",
    compare: bool = True,
    higher_is_worse: bool = True,
) -> AgainstControl[M]:
    """Run an attack on the training and the holdout records and measure the first against a baseline.

    ``attack(records)`` measures the attack on the ``"original"`` (training)
    or the ``"holdout"`` records: it runs it, or reads the shared result that
    did; None for the holdout means there is no control. The baselines
    considered are, with ``pick="holdout"``, the holdout control, or chance
    (``chance``, on ``rate``'s scale) when there is no holdout; with
    ``pick="better"``, chance and the control both, the better for the
    attacker (the larger rate when ``higher_is_worse``, else the smaller;
    chance among equals) being the one reported.

    ``statistic(main, baseline, level)`` is the family's: the value and its
    interval at ``level`` (a difference of rates, one minus a ratio of error
    rates, a residual risk). Against several baselines each interval is at
    the Bonferroni level (:func:`policycheck.core.stats.bonferroni`) and the
    interval is that of the worst value (the smallest excess when
    ``higher_is_worse``, :func:`policycheck.core.stats.worst_interval`).
    ``compare=False`` reports the baseline without measuring against it: the
    value is ``statistic(main, None, confidence)``.
    """
    from policycheck.core.stats import bonferroni

    main = attack("original")
    if main is None:
        raise ValueError("the attack on the training records measured nothing")
    control = attack("holdout")
    holdout = None if control is None else Baseline("holdout", rate(control), control)
    by_chance: Baseline[M] | None = None if chance is None else Baseline("chance", chance)
    candidates = (by_chance, holdout) if pick == "better" else (holdout or by_chance,)
    considered = tuple(b for b in candidates if b is not None)
    if not considered:
        raise ValueError("no baseline to measure the attack against: neither a holdout control nor chance")
    better = max if higher_is_worse else min
    chosen = better(range(len(considered)), key=lambda i: considered[i].rate)
    baseline = considered[chosen]
    raw = rate(main)
    if not compare:
        own = statistic(main, None, confidence)
        return AgainstControl(main, control, raw, baseline, considered, None, own.value, own.interval)
    level = bonferroni(confidence, len(considered))
    estimates = [statistic(main, b, level) for b in considered]
    value = estimates[chosen].value
    interval, borrowed = worst_interval_noted(
        "baseline comparison",
        [b.name for b in considered],
        estimates,
        chosen,
        "min" if higher_is_worse else "max",
    )
    return AgainstControl(main, control, raw, baseline, considered, level, value, interval, borrowed)
