"""The attacker's quasi-identifiers and secrets are analysed columns of the release."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext


def attacker_columns_exist(ctx: PolicyContext) -> list[Problem]:
    """Every quasi-identifier and secret is a column of the release the attacks can use (needs a release)."""
    attacker = ctx.attacker
    if attacker is None or ctx.release is None:
        return []
    problems = []
    for key in ("quasi_identifiers", "secrets"):
        for i, column in enumerate(getattr(attacker, key)):
            why = ctx.missing_column(column)
            if why is not None:
                problems.append(ctx.problem(("attacker", key, i), why))
    return problems
