"""Waivers: a live waiver accepts a rule's fail, warn or inconclusive verdict (the verdict becomes ``waived``).

A waiver's expiry is checked when the policy is loaded (an expired waiver is
an invalid policy), so every waiver reaching the run is live.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from policycheck.engine.outcome import RuleOutcome
from policycheck.engine.verdicts import WAIVABLE
from policycheck.policy.model import Waiver


def apply_waivers(outcomes: Sequence[RuleOutcome], waivers: Iterable[Waiver]) -> tuple[RuleOutcome, ...]:
    """The outcomes with each waivable verdict of a waived rule accepted (the others unchanged)."""
    by_rule = {w.rule: w for w in waivers}
    return tuple(_waive(outcome, by_rule.get(outcome.rule_id)) for outcome in outcomes)


def _waive(outcome: RuleOutcome, waiver: Waiver | None) -> RuleOutcome:
    if waiver is None or outcome.verdict not in WAIVABLE:
        return outcome
    return dataclasses.replace(outcome, waiver=waiver)


def unused_waivers(outcomes: Iterable[RuleOutcome], waivers: Iterable[Waiver]) -> tuple[str, ...]:
    """Ids of the rules a waiver names whose verdict needed none, sorted."""
    used = {o.rule_id for o in outcomes if o.waiver is not None}
    return tuple(sorted({w.rule for w in waivers} - used))
