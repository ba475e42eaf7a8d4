"""A metric that needs holdout records gets a release with a holdout set."""

from __future__ import annotations

from typing import get_args

from policycheck.core.errors import Problem
from policycheck.policy.validators.context import PolicyContext, ResolvedRule


def holdout_present(ctx: PolicyContext, rule: ResolvedRule) -> list[Problem]:
    """A rule that needs a holdout, on a release without one, is refused before computing (needs a release).

    A rule needs one when its metric reads a holdout, or when it asks for ``baseline: holdout`` of a
    metric whose raw measure, on another scale than the levels, cannot stand in.
    """
    if ctx.release is None or ctx.release.holdout is not None:
        return []
    if "holdout" in rule.spec.inputs:
        return [
            ctx.problem(
                rule.at("metric"),
                f"rule {rule.rule.id!r}: metric {rule.spec.name!r} needs a holdout set and the release has none",
            )
        ]
    if rule.spec.holdout_baseline_needs_holdout and getattr(rule.params, "baseline", None) == "holdout":
        # The metric's other baseline (none for most; random for SDMetrics' DCR baseline protection).
        choices = get_args(type(rule.params).model_fields["baseline"].annotation)
        other = next((c for c in choices if c != "holdout"), "none")
        return [
            ctx.problem(
                rule.at("params", "baseline"),
                "baseline: holdout needs a holdout set, and the release has none; add the holdout records the "
                f"synthesizer never saw, or use baseline: {other} (the raw measure, which needs levels of its own)",
            )
        ]
    return []
