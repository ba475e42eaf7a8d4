"""A release where c copies a (so independent histograms break the a-c dependence), evaluated through the registry."""

import numpy as np
import pandas as pd

from policycheck.methods.synthesizers import indhist
from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, MetricResult
from policycheck.release.model import ColumnType, Dataset, Release

NO_BOX = AttackerView("no-box", (), ())


def release() -> Release:
    """Set "copy" is the original; set "indhist" independent histograms of it."""
    rng = np.random.default_rng(0)
    original = pd.DataFrame({"a": rng.choice(list("xy"), 300), "b": rng.choice(list("pq"), 300)})
    original["c"] = np.where(original["a"] == "x", "u", "v")
    original["d"] = rng.normal(size=300)
    types = dict.fromkeys("abc", ColumnType.CATEGORICAL) | {"d": ColumnType.NUMERIC}
    copy = Dataset("synthetic", "copy", original.copy())
    shuffled = Dataset("synthetic", "indhist", indhist(original, 300, np.random.default_rng(1)))
    return Release("r", Dataset("original", "original", original), (copy, shuffled), None, types)


def evaluate(name: str, params: dict) -> MetricResult:
    """The metric's result, its shared intermediate computed first as the runner does."""
    data = release()
    ctx = EvaluationContext(data, NO_BOX, seed=0)
    spec = registry.get_metric(name)
    p = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(p, data)}
    return spec.evaluate(ctx, p, needs)


def problems(name: str, params: dict) -> list:
    """What the metric's check finds in ``params`` against the release, before anything runs."""
    spec = registry.get_metric(name)
    return spec.check(spec.params(**params), release(), NO_BOX)
