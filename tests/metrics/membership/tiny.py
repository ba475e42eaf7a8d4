"""A tiny release whose distances are computed by hand, shared by the membership rules' tests.

Range of x over every set is 10, p = 2. Synthetic -> training / holdout:

- (0, a):  0 (copy of T0)       / (0.4 + 0) / 2 = 0.2    closer to training
- (6, b):  (0.4 + 0) / 2 = 0.2  / (0.2 + 1) / 2 = 0.6    closer to training
- (10, c): (0 + 1) / 2 = 0.5    / 0 (copy of H1)         closer to holdout
- (2, a):  0.2 / 2 = 0.1        / 0.2 / 2 = 0.1          tie
"""

from __future__ import annotations

import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release

TYPES = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
TRAINING = pd.DataFrame({"x": [0.0, 10.0], "c": ["a", "b"]})
HOLDOUT = pd.DataFrame({"x": [4.0, 10.0], "c": ["a", "c"]})
SYNTHETIC = pd.DataFrame({"x": [0.0, 6.0, 10.0, 2.0], "c": ["a", "b", "c", "a"]})


def release(holdout: pd.DataFrame | None, *synthetic: pd.DataFrame, training: pd.DataFrame = TRAINING) -> Release:
    return Release(
        id="tiny",
        original=Dataset("original", "training", training),
        synthetic=tuple(Dataset("synthetic", f"synthetic[{i}]", s) for i, s in enumerate(synthetic)),
        holdout=None if holdout is None else Dataset("holdout", "holdout", holdout),
        column_types=TYPES,
    )


def evaluate(name: str, rel: Release, seed: int = 0, executor=None, **params) -> MetricResult:
    """The metric's result on ``rel``, its shared intermediates computed first (as the runner does)."""
    ctx = EvaluationContext(rel, AttackerView("no-box", (), ()), seed=seed)
    if executor is not None:
        ctx.executor = executor
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, rel)}
    return spec.evaluate(ctx, p, needs)
