"""Waivers: each names a rule of the policy, at most one per rule, and none has expired.

Each check reads the fields it needs of every waiver, field by field: a
waiver refused for one field (an empty ``reason``, a structural problem)
is still checked for the rule it names and its expiry, so one run lists
every problem of the policy, not the first of each waiver.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from dataclasses import dataclass
from typing import Annotated, Any, cast

from pydantic import TypeAdapter, ValidationError

from policycheck.core.errors import Problem
from policycheck.core.suggest import suggest
from policycheck.policy.model import Waiver
from policycheck.policy.validators.context import PolicyContext

#: A validator of each field the checks read, as the Waiver model validates it.
_FIELDS: dict[str, TypeAdapter[Any]] = {
    # The field's type with its constraints (a FieldInfo in Annotated): built at run time, so Any to mypy.
    name: TypeAdapter(cast(Any, Annotated[Waiver.model_fields[name].annotation, Waiver.model_fields[name]]))
    for name in ("rule", "expires")
}


@dataclass(frozen=True)
class WaiverFields:
    """What the checks read of one waiver: each field None when it is missing or invalid (a structural problem)."""

    rule: str | None
    expires: dt.date | None


def _field(raw: dict[str, Any], name: str) -> Any:
    with contextlib.suppress(ValidationError):
        return _FIELDS[name].validate_python(raw[name]) if name in raw else None
    return None


def _waivers(ctx: PolicyContext) -> list[tuple[int, WaiverFields]]:
    """(index, fields) of every waiver that is a mapping, whether or not its other fields validate."""
    return [
        (i, WaiverFields(rule=_field(raw, "rule"), expires=_field(raw, "expires")))
        for i, raw in ctx.items("waivers")
        if isinstance(raw, dict)
    ]


def waivers_name_rules(ctx: PolicyContext) -> list[Problem]:
    """A waiver names a rule of the policy (enabled or not), else a problem with the nearest rule id."""
    rule_ids = [rule.id for _, rule in ctx.rules()]
    return [
        ctx.problem(("waivers", i, "rule"), f"waiver names unknown rule {w.rule!r}{suggest(w.rule, rule_ids)}")
        for i, w in _waivers(ctx)
        if w.rule is not None and w.rule not in rule_ids
    ]


def one_waiver_per_rule(ctx: PolicyContext) -> list[Problem]:
    """A rule has at most one waiver: each waiver after a rule's first is a problem."""
    seen: set[str] = set()
    problems = []
    for i, waiver in _waivers(ctx):
        if waiver.rule is None:
            continue
        if waiver.rule in seen:
            problems.append(ctx.problem(("waivers", i, "rule"), f"rule {waiver.rule!r} has more than one waiver"))
        seen.add(waiver.rule)
    return problems


def waivers_not_expired(ctx: PolicyContext) -> list[Problem]:
    """A waiver that expired before the day the policy is checked must be renewed or removed."""
    return [
        ctx.problem(
            ("waivers", i, "expires"),
            f"waiver{f' for rule {w.rule!r}' if w.rule is not None else ''} expired on {w.expires.isoformat()}: "
            "renew it or remove it",
        )
        for i, w in _waivers(ctx)
        if w.expires is not None and w.expires < ctx.today
    ]
