"""From a measured value and a rule's threshold to a verdict.

Verdicts per rule: pass, warn, fail, waived, error. The release verdict is
error if any rule errored, fail if a blocking rule fails, warn if a rule
warns or an advisory rule fails, else pass (waived rules count as pass).
"""

from __future__ import annotations

import math

from policycheck.errors import EXIT_ERROR, EXIT_FAIL, EXIT_PASS
from policycheck.metrics.base import MetricResult
from policycheck.policy.model import Threshold

RULE_VERDICTS = ("pass", "warn", "fail", "waived", "error")
RELEASE_VERDICTS = ("pass", "warn", "fail", "error")


def compared_value(threshold: Threshold, result: MetricResult) -> float:
    """The number the threshold is compared with: estimate or an interval end."""
    if threshold.compare == "estimate":
        return float(result.value)
    if result.interval is None:
        # NOTE: no interval means the value is exact (e.g. a declared budget).
        return float(result.value)
    lower, upper = result.interval
    return float(lower if threshold.compare == "lower" else upper)


def judge(threshold: Threshold, value: float) -> str:
    """pass, warn or fail: a level is crossed when the value is strictly beyond it."""
    if math.isnan(value):
        raise ValueError("the metric produced no number (NaN)")
    if threshold.direction == "above":
        if value > threshold.fail:
            return "fail"
        if threshold.warn is not None and value > threshold.warn:
            return "warn"
        return "pass"
    if value < threshold.fail:
        return "fail"
    if threshold.warn is not None and value < threshold.warn:
        return "warn"
    return "pass"


def release_verdict(rules: list[dict]) -> str:
    """Overall verdict from rule records with ``verdict`` and ``severity``."""
    verdicts = [(r["verdict"], r["severity"]) for r in rules]
    if any(v == "error" for v, _ in verdicts):
        return "error"
    if any(v == "fail" and s == "blocking" for v, s in verdicts):
        return "fail"
    if any(v in ("warn", "fail") for v, _ in verdicts):
        return "warn"
    return "pass"


def exit_code(verdict: str, fail_on_warn: bool = False) -> int:
    if verdict == "error":
        return EXIT_ERROR
    if verdict == "fail" or (verdict == "warn" and fail_on_warn):
        return EXIT_FAIL
    return EXIT_PASS
