"""Mean relative error of 3-way marginal counts over cells with an original count above 10 (paper 001, sec. 5.3.1)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult, Need
from policycheck.metrics.details import detail
from policycheck.metrics.registry import Method
from policycheck.metrics.utility.common import MarginalParams, analysed_columns, check_triples, marginal_metric
from policycheck.metrics.utility.marginal_errors import marginal_errors_need, marginal_needs
from policycheck.metrics.utility.worst_set import MarginalDetails, marginal_result, worst_set_error
from policycheck.release.model import ColumnType, Release

MRE_METHOD = Method(
    definition="Mean relative error of the 3-way marginal counts of the synthetic data against the original's, "
    "over cells with an original count above min_count.",
    source="paper 001, sec. 5.3",
)


class ThreeWayMarginalMreDetails(MarginalDetails):
    """The MRE of each set (``per_set``), what it was measured on, and the worst set's cells."""

    cells_measured: int = detail("Cells measured in the worst set", unit="cells")
    min_count: int = detail(
        "Cells left out up to this original count", unit="records", help="Only cells above it are measured."
    )


def check_mre_params(
    params: MarginalParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """:func:`check_triples`, and a 3-way marginal cell of the original above ``min_count``, else none is measured.

    With every triple measured (no ``n_triples``), the cells are those the
    metric counts, so the answer is exact; a large original is settled by
    pigeonhole without counting (:func:`policycheck.methods.utility.largest_cell`).
    """
    from itertools import combinations

    from policycheck.methods.utility import largest_cell

    problems = check_triples(params, release, attacker)
    rows = release.original.n_rows
    if rows <= params.min_count:
        problems.append(
            (
                ("min_count",),
                f"the original has {rows} records, so no 3-way marginal cell can hold more "
                f"than min_count={params.min_count}: lower min_count",
            )
        )
    elif not problems and params.n_triples is None:
        cols = analysed_columns(params, release)
        numeric = [c for c in cols if release.column_types.get(c) is ColumnType.NUMERIC]
        largest = largest_cell(
            release.original.frame[cols],
            numeric,
            list(combinations(cols, 3)),
            params.numeric_bins,
            above=params.min_count,
        )
        if largest <= params.min_count:
            problems.append(
                (
                    ("min_count",),
                    f"no 3-way marginal cell of the original has more than "
                    f"min_count={params.min_count} records (the largest holds {largest}): "
                    "lower min_count",
                )
            )
    return problems


@marginal_metric(
    name="three_way_marginal_mre",
    method=MRE_METHOD,
    details=ThreeWayMarginalMreDetails,
    needs=marginal_needs,
    check=check_mre_params,
    value_range=(0.0, None),
    meaning="How far, on average, counts of combinations of three attributes in the synthetic data are from the real "
    "counts, relative to the real count (only combinations held by more than 10 real people). 0.2 means counts are "
    "typically off by 20 %.",
    remedy="Use a synthesizer that models dependencies between attributes, or more synthetic records; if privacy "
    "rules forbid that, relax the utility floor and document the trade-off.",
)
def three_way_marginal_mre(ctx: EvaluationContext, params: MarginalParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Mean relative error of 3-way marginal counts over cells with original count above 10 (worst set)."""
    worst = worst_set_error(ctx, params, needs[marginal_errors_need(params)], "mre")
    details = ThreeWayMarginalMreDetails(
        per_set=worst.per_set,
        worst_set=worst.worst.synthetic,
        triples=len(worst.worst.errors.triples),
        numeric_bins=params.numeric_bins,
        bonferroni=worst.bonferroni,
        cells_measured=int(worst.worst.errors.abs_relative_error.size),
        min_count=params.min_count,
    )
    return marginal_result(worst, "mre", details)
