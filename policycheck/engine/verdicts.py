"""From a measured value and a rule's threshold to a verdict.

Verdicts per rule: pass, warn, fail, inconclusive, waived, error.

The default decision rule (``compare: interval``, also what a threshold
without ``compare`` gets) decides on the estimate's confidence interval, so
that no verdict says more than the sample shows. For a risk (``fail_above``)
the interval's *near end* is its lower end and its *far end* its upper end
(mirrored for ``fail_below``, where higher is safer):

- the near end beyond the fail level: ``fail`` (the sample shows the value
  is beyond it);
- the far end beyond the fail level, the near end not: ``inconclusive``
  (this sample cannot tell; the verdict says how many records would settle
  it);
- the far end within the fail level (the sample shows the value within it):
  ``warn`` if the far end is beyond the warn level, else ``pass``. A warn
  whose near end is also beyond the warn level is *shown* beyond it; one
  whose interval straddles the warn level is *not shown within* it, and
  says how many records would settle that (``unsettled: warn``). Never
  ``inconclusive``: the fail level, the one that can block the release, is
  settled, so ``on_inconclusive: fail`` must not block it.

So ``pass`` means: shown within every level; ``warn``: shown within the
fail level, not shown within the warn level; ``fail``: shown beyond the fail
level; ``inconclusive``: shown neither within nor beyond the fail level. A
value without an interval (an exact one, a declared budget) is judged on
its estimate, as with ``compare: estimate``.

A rule that compares one interval end (``compare: upper`` or ``lower``)
checks its fail level on both the estimate and that bound: both beyond it,
``fail``; exactly one, ``inconclusive``; neither, ``pass`` or ``warn``, the
warn level judged on the compared bound. ``compare: estimate`` is never
inconclusive.

The release verdict is error if any rule errored, fail if a blocking rule
fails or is inconclusive under ``on_inconclusive: fail``, warn if any other
rule warns, fails or is inconclusive, else pass (waived rules count as pass).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from policycheck.core.errors import EXIT_ERROR, EXIT_FAIL, EXIT_PASS, EvaluationError
from policycheck.metrics.base import MetricResult
from policycheck.metrics.combinators import printed_level
from policycheck.policy.model import Threshold


class Verdict(StrEnum):
    """A rule's verdict (a release's is one of pass, warn, fail, error).

    The values are report.json's words, so a verdict is written, compared and
    printed as the word it always was.
    """

    PASS = "pass"
    WARN = "warn"
    FAIL = "fail"
    INCONCLUSIVE = "inconclusive"
    WAIVED = "waived"
    ERROR = "error"


RULE_VERDICTS = tuple(v.value for v in Verdict)
RELEASE_VERDICTS = tuple(v.value for v in (Verdict.PASS, Verdict.WARN, Verdict.FAIL, Verdict.ERROR))
#: Verdicts a live waiver may accept.
WAIVABLE = frozenset({Verdict.FAIL, Verdict.WARN, Verdict.INCONCLUSIVE})
#: The decision rules a verdict can come from (report.json's ``decided_on``).
DECISION_RULES = ("interval", "estimate", "upper", "lower", "refuted_claim")


@dataclass(frozen=True)
class Judgement:
    """A rule's verdict on one measurement, with what it was compared on and why."""

    verdict: Verdict
    #: The number that decided (the estimate, or the interval end that decided).
    compared: float
    #: Plain words for a verdict its name does not explain (inconclusive, a warn the sample does not settle).
    reason: str | None = None
    #: Records that would settle the unsettled level, when the metric says how many it used.
    records_to_settle: int | None = None
    #: The decision rule that decided: interval, estimate, upper or lower.
    decided_on: str = "estimate"
    #: Plain words: which numbers decided, against which level, and what that shows.
    decision: str = ""
    #: The level this sample leaves unsettled: "fail" (inconclusive) or "warn" (a warn not shown beyond it).
    unsettled: str | None = None


def compared_value(threshold: Threshold, result: MetricResult) -> float:
    """The one number ``compare: estimate | upper | lower`` compares with the levels.

    ``compare: interval`` compares both ends (see :func:`judge_interval`);
    here it gives the far end, the one a pass needs within the levels.
    """
    if threshold.compare == "estimate" or result.interval is None:
        # NOTE: no interval means the value is exact (e.g. a declared budget).
        return float(result.value)
    lower, upper = result.interval
    if threshold.compare == "interval":
        return float(upper if threshold.direction == "above" else lower)
    return float(lower if threshold.compare == "lower" else upper)


def beyond(threshold: Threshold, level: float, value: float) -> bool:
    """Whether ``value`` is strictly beyond ``level`` in the threshold's direction."""
    return value > level if threshold.direction == "above" else value < level


def judge(threshold: Threshold, value: float) -> Verdict:
    """pass, warn or fail: a level is crossed when the value is strictly beyond it."""
    if math.isnan(value):
        raise EvaluationError(NO_NUMBER)
    if beyond(threshold, threshold.fail, value):
        return Verdict.FAIL
    if threshold.warn is not None and beyond(threshold, threshold.warn, value):
        return Verdict.WARN
    return Verdict.PASS


#: Why a NaN value gets no verdict (the rule's error, exit code 3).
NO_NUMBER = "the metric produced no number (NaN)"


def judge_result(threshold: Threshold, result: MetricResult) -> Judgement:
    """The verdict of a rule on ``result``: pass, warn, fail or inconclusive (see the module doc)."""
    estimate = float(result.value)
    if threshold.compare == "estimate" or result.interval is None:
        verdict = judge(threshold, estimate)
        exact = threshold.compare != "estimate"
        return Judgement(
            verdict, estimate, decided_on="estimate", decision=_estimate_words(threshold, estimate, verdict, exact)
        )
    if threshold.compare == "interval":
        return judge_interval(threshold, result)
    compared = compared_value(threshold, result)
    if math.isnan(estimate) or math.isnan(compared):
        raise EvaluationError(NO_NUMBER)
    estimate_beyond = beyond(threshold, threshold.fail, estimate)
    bound_beyond = beyond(threshold, threshold.fail, compared)
    decision = _bound_words(threshold, result, compared)
    if estimate_beyond and bound_beyond:
        return Judgement(Verdict.FAIL, compared, decided_on=threshold.compare, decision=decision)
    if not estimate_beyond and not bound_beyond:
        return Judgement(judge(threshold, compared), compared, decided_on=threshold.compare, decision=decision)
    needed = records_to_settle(result.sample_size, estimate, compared, threshold.fail)
    return Judgement(
        Verdict.INCONCLUSIVE,
        compared,
        _inconclusive_reason(threshold, result, compared, needed),
        needed,
        decided_on=threshold.compare,
        decision=decision,
        unsettled="fail",
    )


def judge_interval(threshold: Threshold, result: MetricResult) -> Judgement:
    """The default decision rule: the near and far ends of the interval against each level.

    See the module doc for the rule and its truth table (docs/policy-language.md,
    "Verdicts"). The compared value is the end that decided: the near end of
    a fail or of a warn shown beyond the warn level, else the far end.
    """
    estimate = float(result.value)
    assert result.interval is not None, "judge() decides on the interval only when there is one"
    lower, upper = (float(x) for x in result.interval)
    if math.isnan(estimate) or math.isnan(lower) or math.isnan(upper):
        raise EvaluationError(NO_NUMBER)
    near, far = (lower, upper) if threshold.direction == "above" else (upper, lower)
    fail, warn = threshold.fail, threshold.warn
    words = _Words(threshold, result, near, far)
    if beyond(threshold, fail, near):
        return Judgement(Verdict.FAIL, near, decided_on="interval", decision=words.shown_beyond("fail"))
    if beyond(threshold, fail, far):
        # NOTE: the end to move is the one on the other side of the level from the estimate.
        bound = near if beyond(threshold, fail, estimate) else far
        needed = records_to_settle(result.sample_size, estimate, bound, fail)
        return Judgement(
            Verdict.INCONCLUSIVE,
            far,
            words.unsettled("fail", needed),
            needed,
            decided_on="interval",
            decision=words.straddles("fail"),
            unsettled="fail",
        )
    if warn is None or not beyond(threshold, warn, far):
        return Judgement(Verdict.PASS, far, decided_on="interval", decision=words.shown_within())
    if beyond(threshold, warn, near):
        return Judgement(Verdict.WARN, near, decided_on="interval", decision=words.shown_beyond("warn"))
    bound = near if beyond(threshold, warn, estimate) else far
    needed = records_to_settle(result.sample_size, estimate, bound, warn)
    return Judgement(
        Verdict.WARN,
        far,
        words.unsettled("warn", needed),
        needed,
        decided_on="interval",
        decision=words.straddles("warn"),
        unsettled="warn",
    )


def records_to_settle(n: int | None, estimate: float, bound: float, level: float) -> int | None:
    """Records after which ``bound`` would reach ``level``, if the estimate held.

    An interval's half-width shrinks as 1/sqrt(n), so the bound moves from
    ``bound`` to ``level`` when n grows to n * ((bound - estimate) /
    (level - estimate))^2. None when the metric does not say how many
    records it used, or the estimate sits on the level (no sample settles it).
    """
    if n is None or n <= 0 or estimate == level or not math.isfinite(bound - estimate):
        return None
    ratio = (bound - estimate) / (level - estimate)
    # NOTE: the tolerance keeps rounding noise (784.0000000001) from adding a record.
    return max(int(n) + 1, math.ceil(n * ratio * ratio - 1e-9))


def _inconclusive_reason(threshold: Threshold, result: MetricResult, bound: float, needed: int | None) -> str:
    word = threshold.direction  # "above" or "below"
    level = _num(threshold.fail)
    confidence = _interval_confidence(result)
    end = "upper" if threshold.compare == "upper" else "lower"
    if beyond(threshold, threshold.fail, bound):
        text = (
            f"The estimate {_num(result.value)} is not {word} the fail level {level}, but the {end} end "
            f"of its {confidence}interval{_of(result)}, {_num(bound)}, is: this sample cannot show that the value "
            f"is within the fail level."
        )
    else:
        text = (
            f"The estimate {_num(result.value)} is {word} the fail level {level}, but the {end} end "
            f"of its {confidence}interval{_of(result)}, {_num(bound)}, is not: this sample does not show that the "
            f"value is {word} the fail level."
        )
    return text + _settle_words(needed, result)


def _settle_words(needed: int | None, result: MetricResult) -> str:
    if needed is None:
        return ""
    return (
        f" About {needed:,} {result.sample_unit} (this run used {result.sample_size:,}) would settle it, if the "
        f"estimate held as the interval narrows."
    )


class _Words:
    """The plain words of the interval rule's decisions for one rule and result."""

    def __init__(self, threshold: Threshold, result: MetricResult, near: float, far: float) -> None:
        self.t, self.r, self.near, self.far = threshold, result, near, far
        above = threshold.direction == "above"
        self.word = threshold.direction
        self.within = "at or below" if above else "at or above"
        self.near_end, self.far_end = ("lower", "upper") if above else ("upper", "lower")
        conf = _interval_confidence(result)
        assert result.interval is not None, "the words of an interval's decision need the interval"
        lo, hi = result.interval
        self.interval = f"its {conf}interval [{_num(lo)}, {_num(hi)}]{_of(result)}"

    def _level(self, which: str) -> str:
        level = self.t.fail if which == "fail" else self.t.warn
        assert level is not None, "a warn level is worded only when the rule has one"
        return _num(level)

    def shown_beyond(self, which: str) -> str:
        if which == "fail":
            return (
                f"Decided on the interval: its {self.near_end} end {_num(self.near)} is {self.word} the fail "
                f"level {self._level('fail')}."
            )
        return (
            f"Decided on the interval: its {self.near_end} end {_num(self.near)} is {self.word} the warn level "
            f"{self._level('warn')}, its {self.far_end} end {_num(self.far)} within the fail level "
            f"{self._level('fail')}."
        )

    def shown_within(self) -> str:
        which = "fail" if self.t.warn is None else "warn"
        return (
            f"Decided on the interval: its {self.far_end} end {_num(self.far)} is within the {which} level "
            f"{self._level(which)}."
        )

    def straddles(self, which: str) -> str:
        if which == "fail":
            return (
                f"Decided on the interval: it holds the fail level {self._level('fail')} ({self.near_end} end "
                f"{_num(self.near)}, {self.far_end} end {_num(self.far)})."
            )
        return (
            f"Decided on the interval: within the fail level {self._level('fail')} ({self.far_end} end "
            f"{_num(self.far)}), it holds the warn level {self._level('warn')} ({self.near_end} end "
            f"{_num(self.near)})."
        )

    def unsettled(self, which: str, needed: int | None) -> str:
        if which == "fail":
            text = (
                f"This sample can show the value neither {self.word} nor within the fail level "
                f"{self._level('fail')} (estimate {_num(self.r.value)}, {self.interval})."
            )
        else:
            text = (
                f"Within the fail level {self._level('fail')}, but this sample cannot show the value within the "
                f"warn level {self._level('warn')} (estimate {_num(self.r.value)}, {self.interval}), so the rule "
                f"warns."
            )
        return text + _settle_words(needed, self.r)


def _estimate_words(threshold: Threshold, estimate: float, verdict: Verdict, exact: bool) -> str:
    how = "Decided on the value (it has no interval)" if exact else "Decided on the estimate (compare: estimate)"
    return f"{how}: {_num(estimate)} {_relation(threshold, estimate)}."


def _bound_words(threshold: Threshold, result: MetricResult, bound: float) -> str:
    end = threshold.compare
    return (
        f"Decided on the estimate and the {end} end (compare: {end}): the estimate {_num(result.value)} "
        f"{_relation(threshold, float(result.value))}, the {end} end {_num(bound)} {_relation(threshold, bound)}."
    )


def _relation(threshold: Threshold, value: float) -> str:
    """``is above the fail level 0.3`` / ``is within the warn level 0.1`` for one number."""
    word = threshold.direction
    if beyond(threshold, threshold.fail, value):
        return f"is {word} the fail level {_num(threshold.fail)}"
    if threshold.warn is not None and beyond(threshold, threshold.warn, value):
        return f"is {word} the warn level {_num(threshold.warn)}, within the fail level {_num(threshold.fail)}"
    level = "warn" if threshold.warn is not None else "fail"
    return f"is within the {level} level {_num(threshold.warn if threshold.warn is not None else threshold.fail)}"


def _of(result: MetricResult) -> str:
    """`` of <what the interval is of>`` when the metric says it is not the value's own interval, else ''."""
    return f" of {result.interval_of_short}" if result.interval_of_short else ""


def _interval_confidence(result: MetricResult) -> str:
    """``95% `` (with its space), the level the interval's ends hold at: a Bonferroni level where the rule took
    the worst of several intervals (its details' ``bonferroni``), else the rule's confidence."""
    note = getattr(result.details, "bonferroni", None)
    level = printed_level(result.confidence, getattr(note, "alternatives", None), getattr(note, "level", None))
    return f"{round(level * 100, 2):g}% " if level else ""


def _num(value: float) -> str:
    return f"{float(value):.4g}"


def fails_release(rule: dict[str, Any]) -> bool:
    """Whether a rule record (``verdict``, ``severity``, ``on_inconclusive``) fails the release."""
    if rule["severity"] != "blocking":
        return False
    if rule["verdict"] == Verdict.FAIL:
        return True
    return bool(rule["verdict"] == Verdict.INCONCLUSIVE and rule.get("on_inconclusive", "warn") == "fail")


def release_verdict(rules: list[dict[str, Any]]) -> Verdict:
    """Overall verdict from rule records with ``verdict``, ``severity`` and ``on_inconclusive``."""
    if any(r["verdict"] == Verdict.ERROR for r in rules):
        return Verdict.ERROR
    if any(fails_release(r) for r in rules):
        return Verdict.FAIL
    if any(r["verdict"] in (Verdict.WARN, Verdict.FAIL, Verdict.INCONCLUSIVE) for r in rules):
        return Verdict.WARN
    return Verdict.PASS


def exit_code(verdict: str, fail_on_warn: bool = False) -> int:
    """What the command exits with for a release verdict: 3 error, 1 fail (or warn with ``fail_on_warn``), else 0."""
    if verdict == Verdict.ERROR:
        return EXIT_ERROR
    if verdict == Verdict.FAIL or (verdict == Verdict.WARN and fail_on_warn):
        return EXIT_FAIL
    return EXIT_PASS
