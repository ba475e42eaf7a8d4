"""Consistency across rules: a rule relying on a declared claim another rule refuted fails.

A declared claim (a synthetic set's epsilon, say) that one measurement
refutes cannot count as true in another rule's value: a privacy budget
that sums a refuted epsilon is unaccounted, whatever its total.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from policycheck.engine.outcome import RuleOutcome
from policycheck.engine.verdicts import Judgement, Verdict
from policycheck.release.claims import Claim


def refuted_claims(outcomes: Sequence[RuleOutcome]) -> dict[Claim, str]:
    """Every claim a measurement of this run refutes, with the first rule that refuted it."""
    refuted_by: dict[Claim, str] = {}
    for outcome in outcomes:
        for claim in outcome.result.refutes if outcome.result is not None else ():
            refuted_by.setdefault(claim, outcome.rule_id)
    return refuted_by


def fail_on_refuted_claims(outcomes: Sequence[RuleOutcome]) -> tuple[RuleOutcome, ...]:
    """The outcomes with every rule that relies on a claim another rule refuted failed (the others unchanged)."""
    refuted_by = refuted_claims(outcomes)
    return tuple(_fail_if_relying(outcome, refuted_by) for outcome in outcomes)


def _fail_if_relying(outcome: RuleOutcome, refuted_by: dict[Claim, str]) -> RuleOutcome:
    if outcome.result is None or outcome.judgement is None:
        return outcome
    hits = [
        (claim, refuted_by[claim])
        for claim in outcome.result.relies_on
        if claim in refuted_by and refuted_by[claim] != outcome.rule_id
    ]
    if not hits:
        return outcome
    words = "; ".join(f"{claim.words}, which rule {by!r} refuted" for claim, by in hits)
    refuted = Judgement(
        Verdict.FAIL,
        outcome.judgement.compared,
        reason=(
            f"Fails because its value relies on {words} in this run: a value built on a refuted claim cannot "
            f"pass (a budget that counts it leaves the release unaccounted)."
        ),
        decided_on="refuted_claim",
        decision="Decided by a claim another rule refuted, whatever the rule's own numbers show.",
    )
    return dataclasses.replace(outcome, judgement=refuted)
