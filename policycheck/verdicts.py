"""From a measured value and a rule's threshold to a verdict.

Verdicts per rule: pass, warn, fail, inconclusive, waived, error.

A rule that compares an interval end (``compare: upper`` or ``lower``)
checks its fail level on both the estimate and that bound:

- both beyond the fail level: ``fail`` (the sample shows the value is beyond);
- exactly one beyond: ``inconclusive`` (this sample cannot tell; the verdict
  says how many records would settle it);
- neither: ``pass`` or ``warn``, the warn level judged on the compared bound.

``compare: estimate`` (and a value without an interval) is never
inconclusive.

The release verdict is error if any rule errored, fail if a blocking rule
fails or is inconclusive under ``on_inconclusive: fail``, warn if any other
rule warns, fails or is inconclusive, else pass (waived rules count as pass).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from policycheck.errors import EXIT_ERROR, EXIT_FAIL, EXIT_PASS
from policycheck.metrics.base import MetricResult
from policycheck.policy.model import Threshold

RULE_VERDICTS = ("pass", "warn", "fail", "inconclusive", "waived", "error")
RELEASE_VERDICTS = ("pass", "warn", "fail", "error")
#: Verdicts a live waiver may accept.
WAIVABLE = ("fail", "warn", "inconclusive")


@dataclass(frozen=True)
class Judgement:
    """A rule's verdict on one measurement, with what it was compared on."""

    verdict: str
    #: The number the threshold was compared with (estimate or interval end).
    compared: float
    #: Plain words for a verdict its name does not explain (inconclusive).
    reason: str | None = None
    #: Records that would settle an inconclusive verdict, when the metric says how many it used.
    records_to_settle: int | None = None


def compared_value(threshold: Threshold, result: MetricResult) -> float:
    """The number the threshold is compared with: estimate or an interval end."""
    if threshold.compare == "estimate":
        return float(result.value)
    if result.interval is None:
        # NOTE: no interval means the value is exact (e.g. a declared budget).
        return float(result.value)
    lower, upper = result.interval
    return float(lower if threshold.compare == "lower" else upper)


def beyond(threshold: Threshold, level: float, value: float) -> bool:
    """Whether ``value`` is strictly beyond ``level`` in the threshold's direction."""
    return value > level if threshold.direction == "above" else value < level


def judge(threshold: Threshold, value: float) -> str:
    """pass, warn or fail: a level is crossed when the value is strictly beyond it."""
    if math.isnan(value):
        raise ValueError("the metric produced no number (NaN)")
    if beyond(threshold, threshold.fail, value):
        return "fail"
    if threshold.warn is not None and beyond(threshold, threshold.warn, value):
        return "warn"
    return "pass"


def judge_result(threshold: Threshold, result: MetricResult) -> Judgement:
    """The verdict of a rule on ``result``: pass, warn, fail or inconclusive (see the module doc)."""
    compared = compared_value(threshold, result)
    estimate = float(result.value)
    if threshold.compare == "estimate" or result.interval is None:
        return Judgement(judge(threshold, estimate), compared)
    if math.isnan(estimate) or math.isnan(compared):
        raise ValueError("the metric produced no number (NaN)")
    estimate_beyond = beyond(threshold, threshold.fail, estimate)
    bound_beyond = beyond(threshold, threshold.fail, compared)
    if estimate_beyond and bound_beyond:
        return Judgement("fail", compared)
    if not estimate_beyond and not bound_beyond:
        return Judgement(judge(threshold, compared), compared)
    needed = records_to_settle(result.sample_size, estimate, compared, threshold.fail)
    return Judgement("inconclusive", compared, _inconclusive_reason(threshold, result, compared, needed), needed)


def records_to_settle(n: int | None, estimate: float, bound: float, level: float) -> int | None:
    """Records after which the bound would reach the fail level, if the estimate held.

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
    confidence = f"{result.confidence * 100:g}% " if result.confidence else ""
    end = "upper" if threshold.compare == "upper" else "lower"
    if beyond(threshold, threshold.fail, bound):
        text = (
            f"The estimate {_num(result.value)} is not {word} the fail level {level}, but the {end} end "
            f"of its {confidence}interval, {_num(bound)}, is: this sample cannot show that the value is within the "
            f"fail level."
        )
    else:
        text = (
            f"The estimate {_num(result.value)} is {word} the fail level {level}, but the {end} end "
            f"of its {confidence}interval, {_num(bound)}, is not: this sample does not show that the value is "
            f"{word} the fail level."
        )
    if needed is not None:
        text += (
            f" About {needed:,} records (this run used {result.sample_size:,}) would settle it, if the estimate "
            f"held as the interval narrows."
        )
    return text


def _num(value: float) -> str:
    return f"{float(value):.4g}"


def fails_release(rule: dict[str, Any]) -> bool:
    """Whether a rule record (``verdict``, ``severity``, ``on_inconclusive``) fails the release."""
    if rule["severity"] != "blocking":
        return False
    if rule["verdict"] == "fail":
        return True
    return rule["verdict"] == "inconclusive" and rule.get("on_inconclusive", "warn") == "fail"


def release_verdict(rules: list[dict]) -> str:
    """Overall verdict from rule records with ``verdict``, ``severity`` and ``on_inconclusive``."""
    if any(r["verdict"] == "error" for r in rules):
        return "error"
    if any(fails_release(r) for r in rules):
        return "fail"
    if any(r["verdict"] in ("warn", "fail", "inconclusive") for r in rules):
        return "warn"
    return "pass"


def exit_code(verdict: str, fail_on_warn: bool = False) -> int:
    if verdict == "error":
        return EXIT_ERROR
    if verdict == "fail" or (verdict == "warn" and fail_on_warn):
        return EXIT_FAIL
    return EXIT_PASS
