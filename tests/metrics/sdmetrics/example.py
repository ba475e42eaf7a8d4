"""Evaluate an SDMetrics measure on a one-set release directly, through the registry."""

import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release


def evaluate(
    name: str,
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    types: dict[str, ColumnType],
    holdout: pd.DataFrame | None = None,
    **params,
) -> MetricResult:
    release = Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "s", synthetic),),
        Dataset("holdout", "holdout", holdout) if holdout is not None else None,
        types,
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("key",), ("secret",)), seed=2)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})
