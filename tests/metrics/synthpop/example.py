"""The release of tests/methods/test_synthpop_disclosure.py (hand-computed there and in cases/), evaluated directly."""

import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release

ORIGINAL = pd.DataFrame(
    {
        "sex": ["F", "F", "M", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, 50, None],
        "income": ["lo", "hi", "lo", "lo", "hi", "lo", "hi"],
    }
)
SYNTHETIC = pd.DataFrame(
    {
        "sex": ["F", "F", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, None],
        "income": ["lo", "lo", "lo", "lo", "hi", "hi"],
    }
)
TYPES = {"sex": ColumnType.CATEGORICAL, "age": ColumnType.NUMERIC, "income": ColumnType.CATEGORICAL}


def evaluate(
    name: str,
    synthetic: pd.DataFrame = SYNTHETIC,
    quasi_identifiers: tuple[str, ...] = ("sex", "age"),
    secrets: tuple[str, ...] = ("income",),
    holdout: pd.DataFrame | None = None,
    original: pd.DataFrame = ORIGINAL,
    **params,
) -> MetricResult:
    held = None if holdout is None else Dataset("holdout", "holdout", holdout)
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "s", synthetic),), held, TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", quasi_identifiers, secrets), seed=1)
    spec = registry.get_metric(name)
    chosen = spec.params(**params)
    needs = {need: registry.compute_intermediate(ctx, need) for need in spec.needs(chosen, release)}
    return spec.evaluate(ctx, chosen, needs)
