"""Waivers: each names a rule of the policy, at most one per rule, and none has expired."""

from __future__ import annotations

import contextlib

from pydantic import ValidationError

from policycheck.core.errors import Problem
from policycheck.core.suggest import suggest
from policycheck.policy.model import Waiver
from policycheck.policy.validators.context import PolicyContext


def _waivers(ctx: PolicyContext) -> list[tuple[int, Waiver]]:
    """(index, waiver) of every waiver that validates (the others are structural problems)."""
    found = []
    for i, raw in ctx.items("waivers"):
        with contextlib.suppress(ValidationError):
            found.append((i, Waiver.model_validate(raw)))
    return found


def waivers_name_rules(ctx: PolicyContext) -> list[Problem]:
    """A waiver names a rule of the policy (enabled or not), else a problem with the nearest rule id."""
    rule_ids = [rule.id for _, rule in ctx.rules()]
    return [
        ctx.problem(("waivers", i, "rule"), f"waiver names unknown rule {w.rule!r}{suggest(w.rule, rule_ids)}")
        for i, w in _waivers(ctx)
        if w.rule not in rule_ids
    ]


def one_waiver_per_rule(ctx: PolicyContext) -> list[Problem]:
    """A rule has at most one waiver: each waiver after a rule's first is a problem."""
    seen: set[str] = set()
    problems = []
    for i, waiver in _waivers(ctx):
        if waiver.rule in seen:
            problems.append(ctx.problem(("waivers", i, "rule"), f"rule {waiver.rule!r} has more than one waiver"))
        seen.add(waiver.rule)
    return problems


def waivers_not_expired(ctx: PolicyContext) -> list[Problem]:
    """A waiver that expired before the day the policy is checked must be renewed or removed."""
    return [
        ctx.problem(
            ("waivers", i, "expires"),
            f"waiver for rule {w.rule!r} expired on {w.expires.isoformat()}: renew it or remove it",
        )
        for i, w in _waivers(ctx)
        if w.expires < ctx.today
    ]
