"""A rule names a registered metric."""

from __future__ import annotations

from policycheck.core.errors import Problem
from policycheck.core.suggest import suggest
from policycheck.metrics import registry
from policycheck.policy.validators.context import PolicyContext


def metric_exists(ctx: PolicyContext, index: int, metric: str) -> list[Problem]:
    """The metric rule ``index`` names is registered; else one problem, with the nearest metric's name."""
    catalogue = registry.metrics()
    if metric in catalogue:
        return []
    return [ctx.problem(("rules", index, "metric"), f"unknown metric {metric!r}{suggest(metric, catalogue)}")]
