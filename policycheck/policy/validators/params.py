"""A rule's params validate against its metric's params model."""

from __future__ import annotations

from pydantic import BaseModel, ValidationError

from policycheck.core.errors import Problem
from policycheck.metrics.registry import MetricSpec
from policycheck.policy.structure import pydantic_problems
from policycheck.policy.validators.context import PolicyContext

#: The policy's confidence level when it gives none.
DEFAULT_CONFIDENCE = 0.95


def validated_params(
    ctx: PolicyContext, index: int, params: dict[str, object], spec: MetricSpec
) -> tuple[BaseModel | None, list[Problem]]:
    """The rule's params as its metric's model (None and every problem when they do not validate).

    The policy's ``confidence`` is the default of every metric that reports
    intervals; a rule may still set its own.
    """
    raw = dict(params)
    if "confidence" in spec.params.model_fields and "confidence" not in raw:
        confidence = ctx.data.get("confidence", DEFAULT_CONFIDENCE)
        if isinstance(confidence, float) and 0 < confidence < 1:  # else the structural pass reports it
            raw["confidence"] = confidence
    try:
        return spec.params.model_validate(raw), []
    except ValidationError as exc:
        at = ("rules", index, "params")
        return None, pydantic_problems(exc, ctx.source, ctx.name, at, model_fields=spec.params.model_fields)
