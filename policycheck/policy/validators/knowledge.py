"""The attacker model grants the knowledge a rule's metric assumes."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.metrics.base import GRANTS, KNOWLEDGE_WORDS
from policycheck.policy.validators.context import PolicyContext, ResolvedRule


def knowledge_granted(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """A metric assuming what the policy's attacker model does not grant is refused (the model would be broken)."""
    model = ctx.attacker_model
    if model is None:
        return []
    missing = sorted(rule.spec.knowledge - GRANTS[model], key=lambda k: k.value)
    if not missing:
        return []
    words = "; ".join(KNOWLEDGE_WORDS[k] for k in missing)
    return [
        ctx.problem(
            rule.at("metric"),
            f"metric {rule.rule.metric!r} assumes the attacker knows {words}, "
            f"which the {model!r} attacker model does not grant",
        )
    ]
