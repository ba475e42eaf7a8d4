"""Build a validator's input from a policy written to a file: its merged document, a release, the day."""

import datetime as dt

from policycheck.core.errors import display_path
from policycheck.policy.semantics import resolve_rules
from policycheck.policy.source import load_source
from policycheck.policy.validators.context import PolicyContext

#: The day the policies of these tests are checked on.
TODAY = dt.date(2026, 3, 1)


def context(path, release=None, today=TODAY):
    return PolicyContext(load_source(path), display_path(path), release, today)


def resolved(ctx, rule_id):
    """The rule ``rule_id`` with its metric and validated params."""
    (rule,) = [r for r in resolve_rules(ctx)[0] if r.rule.id == rule_id]
    return rule


def lines(problems):
    return [str(p) for p in problems]
