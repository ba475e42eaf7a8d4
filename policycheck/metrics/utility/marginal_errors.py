"""The shared intermediate: every synthetic set's 3-way marginal errors, on the same triples (paper 001, sec. 5.3)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.metrics.registry import intermediate
from policycheck.metrics.utility.common import MarginalParams
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import pandas as pd

    from policycheck.methods.utility import MarginalErrors


@dataclass(frozen=True)
class MarginalTask:
    """One synthetic set's share of the work, sent through the executor."""

    original: pd.DataFrame
    synthetic: pd.DataFrame
    numeric: tuple[str, ...]
    triples: tuple[tuple[str, ...], ...]
    numeric_bins: int
    min_count: int


def measure_set(task: MarginalTask) -> MarginalErrors:
    """3-way marginal errors of one synthetic set (top-level: picklable)."""
    from policycheck.methods.utility import three_way_marginal_errors

    return three_way_marginal_errors(
        task.original, task.synthetic, task.numeric, task.triples, task.numeric_bins, task.min_count
    )


@intermediate(
    name="three_way_marginal_errors",
    description="Per synthetic set: relative errors of 3-way marginal cells and the TVD of each triple.",
    inputs={"original", "synthetic"},
)
def marginal_errors(
    ctx: EvaluationContext,
    *,
    columns: tuple[str, ...] | None,
    n_triples: int | None,
    numeric_bins: int,
    min_count: int,
) -> list[MarginalErrors]:
    """Measure every synthetic set on the same triples (every triple, or a seeded sample), through the executor."""
    from policycheck.methods.utility import choose_triples

    release = ctx.release
    cols = list(dict.fromkeys(columns or release.columns))
    if len(cols) < 3:
        raise EvaluationError(f"3-way marginals need at least three columns, and param columns names {len(cols)}")
    triples = tuple(choose_triples(cols, n_triples, ctx.rng("utility", "triples")))
    numeric = tuple(c for c in cols if release.column_types.get(c) is ColumnType.NUMERIC)
    tasks = [
        MarginalTask(release.original.frame[cols], s.frame[cols], numeric, triples, numeric_bins, min_count)
        for s in release.synthetic
    ]
    return ctx.executor.map(measure_set, tasks, lambda d, t: ctx.progress("3-way marginals", d, t))


def marginal_errors_need(params: MarginalParams) -> Need:
    """The intermediate a marginal rule reads: equal params share one computation."""
    return Need.of(
        "three_way_marginal_errors",
        columns=tuple(params.columns) if params.columns else None,
        n_triples=params.n_triples,
        numeric_bins=params.numeric_bins,
        min_count=params.min_count,
    )


def marginal_needs(params: MarginalParams, release: Release) -> list[Need]:
    """The registry's ``needs`` hook of both marginal metrics."""
    return [marginal_errors_need(params)]
