"""Utility family: how well synthetic sets keep the original's 3-way marginals (paper 001, sec. 5.3).

Utility floors sit next to privacy ceilings so a report shows the
privacy-utility trade-off. Both metrics are errors (lower is better), so a
policy bounds them with ``fail_above``:

``three_way_marginal_mre``
    Mean relative error of 3-way marginal counts, over cells whose original
    count exceeds 10 (MRE_{>10}).
``three_way_marginal_tvd``
    Average total variation distance of the 3-way marginal distributions.

A missing value is a category of its own (numeric columns too). With several
synthetic sets the value is the worst set; when triples are sampled, each
set's bootstrap interval is at the Bonferroni level and the rule reports the
interval of the worst.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, EvaluationError, MetricResult, Need
from policycheck.metrics.registry import Method, Params, imported_where_used, intermediate, metric
from policycheck.release.model import ColumnType, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd

    from policycheck.methods.utility import MarginalErrors

REFERENCE = (
    "Annamalai, Gadotti, Rocher. A Linear Reconstruction Approach for Attribute Inference "
    "Attacks against Synthetic Data. USENIX Security 2024 (paper 001), sec. 5.3."
)


class MarginalParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns whose triples are measured; default: every column of the release."
    )
    n_triples: int | None = Field(
        None, ge=1, description="A seeded random sample of this many column triples; null measures every triple."
    )
    numeric_bins: int = Field(
        10, ge=2, le=100, description="Quantile bins of each numeric column (bins of the original)."
    )
    min_count: int = Field(10, ge=0, description="MRE only: cells whose original count is at most this are left out.")
    confidence: float = Field(
        0.95,
        gt=0,
        lt=1,
        description="Confidence of the bootstrap interval over triples (only when triples are sampled).",
    )


# The methods section (registry.Method).
MRE_METHOD = Method(
    definition="Mean relative error of the 3-way marginal counts of the synthetic data against the original's, "
    "over cells with an original count above min_count.",
    source="paper 001, sec. 5.3",
)
TVD_METHOD = Method(
    definition="Average total variation distance between the original's and the synthetic data's 3-way marginals "
    "(numeric columns in quantile bins of the original, missing values a category).",
    source="paper 001, sec. 5.3",
)


@dataclass(frozen=True)
class MarginalTask:
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
    """Measure every synthetic set on the same triples, through the executor."""
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


def _need(p: MarginalParams) -> Need:
    return Need.of(
        "three_way_marginal_errors",
        columns=tuple(p.columns) if p.columns else None,
        n_triples=p.n_triples,
        numeric_bins=p.numeric_bins,
        min_count=p.min_count,
    )


def _result(ctx: EvaluationContext, params: MarginalParams, per_set: list[MarginalErrors], which: str) -> MetricResult:
    """Worst set's error, per-set values, and an interval when triples were sampled."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.utility import count_triples

    names = [s.name for s in ctx.release.synthetic]
    values = [e.mre if which == "mre" else e.mean_tvd for e in per_set]
    if all(np.isnan(v) for v in values):
        # NOTE: check_mre_params refuses this before running when every triple is
        # measured; with n_triples the triples are drawn from the run's seed, so
        # whether the drawn ones hold such a cell is known only here.
        raise EvaluationError(
            f"no 3-way marginal cell of the original has more than min_count={params.min_count} records: "
            "lower min_count"
        )
    worst = int(np.nanargmax(values))
    errors = per_set[worst]
    interval, confidence, bonferroni = None, None, None
    n_columns = len(dict.fromkeys(params.columns or ctx.release.columns))
    if params.n_triples is not None and params.n_triples < count_triples(n_columns):
        # The triples are a sample: the value estimates the mean over every triple.
        level = stats.bonferroni(params.confidence, len(per_set))
        bonferroni = {"alternatives": len(per_set), "level": level}
        intervals = [
            _bootstrap(e, which, ctx.rng("utility", which, "bootstrap", i), level) for i, e in enumerate(per_set)
        ]
        interval = stats.worst_interval([iv for iv in intervals if not np.isnan(iv[0])])
        confidence = params.confidence
    details: dict[str, Any] = {
        "per_set": {n: (None if np.isnan(v) else float(v)) for n, v in zip(names, values, strict=False)},
        "worst_set": names[worst],
        "triples": len(errors.triples),
        "cells_measured": int(errors.abs_relative_error.size) if which == "mre" else None,
        "numeric_bins": params.numeric_bins,
        "min_count": params.min_count if which == "mre" else None,
        "missing_values": "a missing value is a category of its own, in numeric columns too",
        "bonferroni": bonferroni,
    }
    return MetricResult(
        value=float(values[worst]),
        interval=interval,
        confidence=confidence,
        details=details,
        charts=_histogram(errors, which, names[worst]),
        sample_size=len(errors.triples) if interval is not None else None,
    )


def _bootstrap(errors: MarginalErrors, which: str, rng: np.random.Generator, level: float) -> tuple[float, float]:
    """Bootstrap interval over the sampled triples of one set's TVD or MRE."""
    import numpy as np

    from policycheck.core import stats

    sampled = len(errors.triples)
    if which == "tvd":

        def stat(idx: np.ndarray) -> float:
            return float(errors.tvd[idx].mean())

    else:
        # Resample triples, pooling their cells as the MRE does.
        bounds = np.concatenate([[0], np.cumsum(errors.cells_per_triple)])
        parts = [errors.abs_relative_error[bounds[i] : bounds[i + 1]] for i in range(sampled)]

        def stat(idx: np.ndarray) -> float:
            pooled = np.concatenate([parts[i] for i in idx])
            return float(pooled.mean()) if pooled.size else float("nan")

    return stats.bootstrap_interval(stat, sampled, rng, confidence=level)


def _histogram(errors: MarginalErrors, which: str, set_name: str) -> tuple[dict[str, Any], ...]:
    """Distribution of the worst set's errors: TVD per triple, or relative error per cell."""
    import numpy as np

    if which == "tvd":
        values, title, label, span = errors.tvd, "TVD of each 3-way marginal", "total variation distance", (0.0, 1.0)
        counted = "3-way marginals"
    else:
        # NOTE: relative errors are unbounded; the last bin collects 2 and above.
        values = np.minimum(errors.abs_relative_error, 2.0)
        title, label, span = "Relative error of 3-way marginal cells (2 = 2 or more)", "relative error", (0.0, 2.0)
        counted = "marginal cells"
    if values.size == 0:
        return ()
    counts, edges = np.histogram(values, bins=20, range=span)
    series = [{"name": set_name, "edges": [float(e) for e in edges], "counts": [int(c) for c in counts]}]
    return (
        {
            "kind": "histogram",
            "title": f"{title} ({set_name})",
            "x_label": label,
            "counts_of": counted,
            "series": series,
        },
    )


# The two marginal metrics read the same comparison and differ in what they report.
def check_triples(params: MarginalParams, release: Release, attacker: Any) -> list[tuple[tuple[str, ...], str]]:
    """Before running: three distinct analysed columns to form triples from (sec. 5.3 measures 3-way marginals)."""
    cols = list(dict.fromkeys(params.columns or release.columns))
    if len(cols) >= 3:
        return []
    if params.columns:
        return [(("columns",), f"3-way marginals need three distinct columns; param columns names {len(cols)}")]
    return [((), f"3-way marginals need three analysed columns; the release has {len(cols)}")]


def check_mre_params(params: MarginalParams, release: Release, attacker: Any) -> list[tuple[tuple[str, ...], str]]:
    """:func:`check_triples`, and some 3-way marginal cell of the original above ``min_count``, else none can be measured.

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
        cols = list(dict.fromkeys(params.columns or release.columns))
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


marginal_metric = partial(
    metric,
    family="utility",
    params=MarginalParams,
    knowledge=set(),
    inputs={"original", "synthetic"},
    column_params=("columns",),
    needs=lambda p, r: [_need(p)],
    references=(REFERENCE,),
)


@marginal_metric(
    name="three_way_marginal_mre",
    method=MRE_METHOD,
    check=check_mre_params,
    value_range=(0.0, None),
    meaning="How far, on average, counts of combinations of three attributes in the synthetic data are from the real "
    "counts, relative to the real count (only combinations held by more than 10 real people). 0.2 means counts are "
    "typically off by 20 %.",
    remedy="Use a synthesizer that models dependencies between attributes, or more synthetic records; if privacy "
    "rules forbid that, relax the utility floor and document the trade-off.",
)
def three_way_marginal_mre(ctx: EvaluationContext, params: MarginalParams, needs) -> MetricResult:
    """Mean relative error of 3-way marginal counts over cells with original count above 10 (worst set)."""
    return _result(ctx, params, needs[_need(params)], "mre")


@marginal_metric(
    name="three_way_marginal_tvd",
    method=TVD_METHOD,
    check=check_triples,
    value_range=(0.0, 1.0),
    meaning="The share of probability mass that sits in the wrong place when the synthetic data's combinations of "
    "three attributes are compared with the real ones, averaged over combinations: 0 is a perfect copy of the "
    "distributions, 1 is disjoint.",
    remedy="Use a synthesizer that models dependencies between attributes; if privacy rules forbid that, relax the "
    "utility floor and document the trade-off.",
)
def three_way_marginal_tvd(ctx: EvaluationContext, params: MarginalParams, needs) -> MetricResult:
    """Average total variation distance of 3-way marginal distributions (worst set)."""
    return _result(ctx, params, needs[_need(params)], "tvd")


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "MarginalErrors": ("policycheck.methods.utility", "MarginalErrors"),
    "choose_triples": ("policycheck.methods.utility", "choose_triples"),
    "count_triples": ("policycheck.methods.utility", "count_triples"),
    "stats": ("policycheck.core.stats", None),
    "three_way_marginal_errors": ("policycheck.methods.utility", "three_way_marginal_errors"),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
