"""The columns a rule's params name are analysed columns of the release."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext, ResolvedRule, column_names


def column_params_exist(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """Every column a column param names is in the release and analysed (needs a release)."""
    if ctx.release is None:
        return []
    problems = []
    for field in rule.spec.column_params:
        for column in column_names(getattr(rule.params, field)):
            why = None if column is None else ctx.missing_column(column)
            if why is not None:
                problems.append(ctx.problem(rule.at("params", field), why))
    return problems
