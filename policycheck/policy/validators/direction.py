"""A threshold fails on the side of its metric that is unsafe."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext, ResolvedRule


def direction_matches_metric(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """``fail_above`` for a metric where higher is riskier, ``fail_below`` where higher is safer."""
    direction = rule.rule.threshold.direction
    if direction == rule.spec.fail_direction:
        return []
    metric = rule.rule.metric
    if rule.spec.fail_direction == "below":
        message = (
            f"higher is safer for {metric}: a rule fails when the value is too low; use fail_below (and warn_below)"
        )
    else:
        message = (
            f"higher is riskier for {metric}: a rule fails when the value is too high; use fail_above (and warn_above)"
        )
    return [ctx.problem(rule.at("threshold", f"fail_{direction}"), message)]
