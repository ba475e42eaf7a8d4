"""A metric's own check of its params against the release (a secret it can attack, a query it can pose)."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.column_params import column_params_exist
from policycheck.policy.validators.context import PolicyContext, ResolvedRule, attacker_view


def metric_own_check(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """The problems the metric's ``check`` hook finds (needs a release and a valid attacker model).

    It runs only on params whose columns exist, so one mistake gives one message.
    """
    attacker = ctx.attacker
    if rule.spec.check is None or ctx.release is None or attacker is None or column_params_exist(ctx, rule):
        return []
    found = rule.spec.check(rule.params, ctx.release, attacker_view(attacker))
    return [ctx.problem(rule.at("params", *path), message) for path, message in found]
