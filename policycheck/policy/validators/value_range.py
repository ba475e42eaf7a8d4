"""A threshold's levels lie within the range of values its metric can take."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext, ResolvedRule


def levels_in_value_range(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """A level the metric can never reach (a share above 1) is a mistake, not a strict policy."""
    lo, hi = rule.spec.value_range
    metric = rule.rule.metric
    return [
        ctx.problem(rule.at("threshold", level), f"{level} = {value} is outside the range of {metric} [{lo}, {hi}]")
        for level, value in rule.rule.threshold.levels()
        if (lo is not None and value < lo) or (hi is not None and value > hi)
    ]
