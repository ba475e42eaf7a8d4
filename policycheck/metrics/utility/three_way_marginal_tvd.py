"""Average total variation distance of the 3-way marginal distributions (paper 001, sec. 5.3.2)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policycheck.metrics.base import EvaluationContext, MetricResult, Need
from policycheck.metrics.registry import Method
from policycheck.metrics.utility.common import MarginalParams, check_triples, marginal_metric
from policycheck.metrics.utility.marginal_errors import marginal_errors_need, marginal_needs
from policycheck.metrics.utility.worst_set import MarginalDetails, marginal_result, worst_set_error

TVD_METHOD = Method(
    definition="Average total variation distance between the original's and the synthetic data's 3-way marginals "
    "(numeric columns in quantile bins of the original, missing values a category).",
    source="paper 001, sec. 5.3",
)


class ThreeWayMarginalTvdDetails(MarginalDetails):
    """The average 3-TVD of each set (``per_set``) and what it was measured on."""


@marginal_metric(
    name="three_way_marginal_tvd",
    method=TVD_METHOD,
    details=ThreeWayMarginalTvdDetails,
    needs=marginal_needs,
    check=check_triples,
    value_range=(0.0, 1.0),
    meaning="The share of probability mass that sits in the wrong place when the synthetic data's combinations of "
    "three attributes are compared with the real ones, averaged over combinations: 0 is a perfect copy of the "
    "distributions, 1 is disjoint.",
    remedy="Use a synthesizer that models dependencies between attributes; if privacy rules forbid that, relax the "
    "utility floor and document the trade-off.",
)
def three_way_marginal_tvd(ctx: EvaluationContext, params: MarginalParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Average total variation distance of 3-way marginal distributions (worst set)."""
    worst = worst_set_error(ctx, params, needs[marginal_errors_need(params)], "tvd")
    details = ThreeWayMarginalTvdDetails(
        per_set=worst.per_set,
        worst_set=worst.worst.synthetic,
        triples=len(worst.worst.errors.triples),
        numeric_bins=params.numeric_bins,
        bonferroni=worst.bonferroni,
    )
    return marginal_result(worst, "tvd", details)
