"""A policy's semantic checks: the validators of :mod:`policycheck.policy.validators`, in order.

Every enabled rule is first resolved (its metric exists, its params validate);
each resolved rule then goes through the rule checks, and the policy as a
whole through the policy checks. Every problem is collected: one run lists
them all.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from pydantic import BaseModel

from policycheck.core.errors import Problem
from policycheck.metrics import registry
from policycheck.policy.source import Source
from policycheck.policy.validators.attacker_columns import attacker_columns_exist
from policycheck.policy.validators.column_params import column_params_exist
from policycheck.policy.validators.context import PolicyContext, ResolvedRule
from policycheck.policy.validators.direction import direction_matches_metric
from policycheck.policy.validators.holdout import holdout_present
from policycheck.policy.validators.knowledge import knowledge_granted
from policycheck.policy.validators.metric_check import metric_own_check
from policycheck.policy.validators.metric_exists import metric_exists
from policycheck.policy.validators.params import validated_params
from policycheck.policy.validators.value_range import levels_in_value_range
from policycheck.policy.validators.waivers import one_waiver_per_rule, waivers_name_rules, waivers_not_expired
from policycheck.release.model import Release

#: Checks of the policy as a whole.
POLICY_CHECKS: tuple[Callable[[PolicyContext], list[Problem]], ...] = (
    attacker_columns_exist,
    waivers_name_rules,
    one_waiver_per_rule,
    waivers_not_expired,
)

#: Checks of each enabled rule whose metric exists and whose params validate.
RULE_CHECKS: tuple[Callable[[PolicyContext, ResolvedRule], list[Problem]], ...] = (
    knowledge_granted,
    direction_matches_metric,
    levels_in_value_range,
    holdout_present,
    column_params_exist,
    metric_own_check,
)


def check_semantics(
    source: Source, name: str, release: Release | None, today: dt.date
) -> tuple[dict[str, BaseModel], list[Problem]]:
    """(validated params per enabled rule id, every semantic problem) of a merged policy document."""
    ctx = PolicyContext(source, name, release, today)
    rules, problems = resolve_rules(ctx)
    for rule in rules:
        for rule_check in RULE_CHECKS:
            problems.extend(rule_check(ctx, rule))
    for policy_check in POLICY_CHECKS:
        problems.extend(policy_check(ctx))
    return {r.rule.id: r.params for r in rules}, problems


def resolve_rules(ctx: PolicyContext) -> tuple[list[ResolvedRule], list[Problem]]:
    """Every enabled rule with its metric and validated params, and the problems of those that have neither."""
    resolved: list[ResolvedRule] = []
    problems: list[Problem] = []
    valid = ctx.rules()
    for index, rule in valid:
        if not rule.enabled:
            continue
        unknown = metric_exists(ctx, index, rule.metric)
        if unknown:
            problems.extend(unknown)
            continue
        spec = registry.metrics()[rule.metric]
        params, invalid = validated_params(ctx, index, rule.params, spec)
        problems.extend(invalid)
        if params is not None:
            resolved.append(ResolvedRule(index, rule, spec, params))
    problems.extend(_refused_rules_metric_and_params(ctx, {index for index, _ in valid}))
    return resolved, problems


def _refused_rules_metric_and_params(ctx: PolicyContext, valid: set[int]) -> list[Problem]:
    """A rule refused for another field (a structural problem) still has its metric and params checked,
    so one run lists every problem of the rule, not its first."""
    problems: list[Problem] = []
    for index, raw in ctx.items("rules"):
        if index in valid or not isinstance(raw, dict) or raw.get("enabled") is False:
            continue
        metric = raw.get("metric")
        if not isinstance(metric, str):
            continue  # missing or not a name: the structural problem says so
        unknown = metric_exists(ctx, index, metric)
        problems.extend(unknown)
        params = raw.get("params", {})
        if not unknown and isinstance(params, dict):
            problems.extend(validated_params(ctx, index, params, registry.metrics()[metric])[1])
    return problems
