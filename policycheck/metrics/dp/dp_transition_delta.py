"""``dp_transition_delta``: delta of (epsilon, delta)-probabilistic DP of a transition matrix (paper 004, sec. 3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.dp.charts import log_ratio_heatmap
from policycheck.metrics.dp.dp_transition_audit import (
    TRANSITION_REFERENCES,
    TransitionAuditDetails,
    TransitionParams,
    audit_details,
    audit_need,
)
from policycheck.metrics.registry import Method, metric

METHOD = Method(
    definition="Delta of (epsilon, delta)-probabilistic DP: the probability mass of the outputs whose log ratio "
    "under some neighbouring table exceeds the target epsilon.",
    source="paper 004, sec. 4",
)


class TransitionDeltaParams(TransitionParams):
    target_epsilon: float = Field(gt=0, description="The epsilon of (epsilon, delta)-probabilistic DP.")
    delta_event: Literal["unusual_output", "any_offending"] = Field(
        "unusual_output",
        description="'unusual_output': probability that the output is one a neighbouring table would produce more "
        "than e^epsilon times as often as the true table (reproduces the paper's 0.0006); 'any_offending': "
        "probability of every (table, output) on either side of an offending cell (more conservative).",
    )


class TransitionDeltaDetails(TransitionAuditDetails):
    delta_event: Literal["unusual_output", "any_offending"] = detail("Event delta measures")
    table_distribution: Literal["multinomial", "uniform"] = detail("Distribution of the confidential table")


@metric(
    name="dp_transition_delta",
    method=METHOD,
    family="dp",
    params=TransitionDeltaParams,
    details=TransitionDeltaDetails,
    knowledge={Knowledge.DECLARED_MECHANISM},
    inputs=set(),
    value_range=(0.0, 1.0),
    needs=lambda p, r: [audit_need(p)],
    meaning="The probability that the synthesizer produces an output that breaks the target epsilon: the delta of "
    "(epsilon, delta)-probabilistic differential privacy, the chance that the epsilon guarantee fails.",
    remedy="Add more noise or coarsen the table so that unusual outputs are less lopsided between neighbouring "
    "tables, or accept a larger target epsilon.",
    references=TRANSITION_REFERENCES,
)
def dp_transition_delta(
    ctx: EvaluationContext, params: TransitionDeltaParams, needs: Mapping[Need, Any]
) -> MetricResult:
    """Delta of (epsilon, delta)-probabilistic DP of a synthesizer's transition matrix (sec. 3)."""
    mat, aud = needs[audit_need(params)]
    value = aud.delta if params.delta_event == "unusual_output" else aud.delta_any_offending
    details = TransitionDeltaDetails.model_validate(
        {
            **dict(audit_details(mat, aud)),
            "delta_event": params.delta_event,
            "table_distribution": params.table_distribution,
        }
    )
    return MetricResult(value=float(value), details=details, charts=(log_ratio_heatmap(mat, aud),))
