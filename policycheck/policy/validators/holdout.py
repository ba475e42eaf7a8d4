"""A metric that needs holdout records gets a release with a holdout set."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext, ResolvedRule


def holdout_present(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """A rule whose metric needs a holdout, on a release without one, is refused before computing (needs a release)."""
    if ctx.release is None or "holdout" not in rule.spec.inputs or ctx.release.holdout is not None:
        return []
    return [
        ctx.problem(
            rule.at("metric"),
            f"rule {rule.rule.id!r}: metric {rule.spec.name!r} needs a holdout set and the release has none",
        )
    ]
