"""A release of 200 training and 200 holdout records half a step apart, for the DP rules' tests."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.metrics.details import Details
from policycheck.release.model import ColumnType, Dataset, Release, SynthesizerInfo

TYPES = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
TRAINING = pd.DataFrame({"x": np.arange(200, dtype=float), "c": ["a"] * 200})
# Never a copy of a training record: every holdout record is 0.5 away in x.
HOLDOUT = pd.DataFrame({"x": np.arange(200, dtype=float) + 0.5, "c": ["a"] * 200})


def release(*infos: SynthesizerInfo | None, synthetic: pd.DataFrame = TRAINING, rid: str = "adult-2026") -> Release:
    return Release(
        id=rid,
        original=Dataset("original", "training", TRAINING),
        synthetic=tuple(Dataset("synthetic", f"synthetic[{i}]", synthetic, synthesizer=s) for i, s in enumerate(infos)),
        holdout=Dataset("holdout", "holdout", HOLDOUT),
        column_types=TYPES,
    )


def evaluate(name: str, rel: Release, base_dir: Path | None = None, needs=None, **params) -> MetricResult:
    """The metric's result, its shared intermediates computed first; its details and charts must be strict JSON."""
    ctx = EvaluationContext(rel, AttackerView("maximum-knowledge", (), ()), seed=7)
    if base_dir is not None:
        ctx.base_dir = base_dir
    spec = registry.get_metric(name)
    p = spec.params(**params)
    if needs is None:
        needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, rel)}
    result = spec.evaluate(ctx, p, needs)
    assert isinstance(result.details, Details)
    json.dumps(result.details.to_report(), allow_nan=False)
    json.dumps(result.charts, allow_nan=False)
    return result
