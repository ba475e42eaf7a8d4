"""``dp_transition_epsilon``: the epsilon of a synthesizer's transition matrix (paper 004, sec. 3, eq. 3)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need
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
    definition="Epsilon of a synthesizer's transition matrix Pr[m | n]: the largest |log| ratio of the "
    "probabilities of one output under neighbouring tables.",
    source="paper 004, sec. 3-4",
)


@metric(
    name="dp_transition_epsilon",
    method=METHOD,
    family="dp",
    params=TransitionParams,
    details=TransitionAuditDetails,
    knowledge={Knowledge.DECLARED_MECHANISM},
    inputs=set(),
    value_range=(0.0, None),
    needs=lambda p, r: [audit_need(p)],
    meaning="The largest factor, as a natural log, by which any output of the synthesizer is more likely under "
    "one confidential table than under a table that differs in one person: the epsilon of differential privacy. "
    "Infinite means some output rules a table out completely.",
    remedy="Add more noise (a larger prior alpha or a smaller Laplace epsilon), or coarsen the table so every "
    "output stays possible under every table.",
    references=TRANSITION_REFERENCES,
)
def dp_transition_epsilon(ctx: EvaluationContext, params: TransitionParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Epsilon of a synthesizer's transition matrix: the largest log ratio over neighbouring tables (eq. 3)."""
    mat, aud = needs[audit_need(params)]
    notes: tuple[str, ...] = ()
    if not math.isfinite(aud.epsilon):
        notes = ("Some output is possible under one table and impossible under a neighbour: epsilon is infinite.",)
    return MetricResult(
        value=float(aud.epsilon), details=audit_details(mat, aud), charts=(log_ratio_heatmap(mat, aud),), notes=notes
    )
