"""SDMetrics' measures through the registry."""

import numpy as np
import pandas as pd
import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import ColumnType, Dataset, Release

REAL = pd.DataFrame({"key": ["a", "a", "b", "c", "d"], "secret": ["x", "y", "x", "y", "z"]})
SYNTHETIC = pd.DataFrame({"key": ["a", "a", "a", "b", "d"], "secret": ["x", "x", "y", "y", "z"]})
TYPES = {"key": ColumnType.CATEGORICAL, "secret": ColumnType.CATEGORICAL}


def evaluate(name, original, synthetic, types, **params):
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "s", synthetic),), None, types
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("key",), ("secret",)), seed=2)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})


def test_cap_disclosure_protection_defaults_to_the_attackers_columns():
    # Hand-computed in tests/methods/test_cap_disclosure.py: mean CAP 0.5, baseline 2/3, score 0.75.
    result = evaluate("cap_disclosure_protection", REAL, SYNTHETIC, TYPES)
    assert result.value == pytest.approx(0.75)
    assert result.raw == pytest.approx(0.5) and result.baseline == pytest.approx(2 / 3)
    assert result.sample_size == 4 and result.interval[0] <= 0.75 <= result.interval[1]


def test_a_copy_has_no_dcr_baseline_protection_and_data_drawn_like_the_baseline_has_full():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.uniform(0, 1, 300), "c": rng.choice(list("abcdefgh"), 300)})
    types = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
    copy = evaluate("dcr_baseline_protection", real, real.copy(), types)
    assert copy.value == 0.0 and copy.raw == 0.0 and copy.baseline > 0
    independent = pd.DataFrame({"x": rng.uniform(0, 1, 300), "c": rng.choice(list("abcdefgh"), 300)})
    # Drawn exactly as SDMetrics' random records are: the ratio's expectation is 1.
    result = evaluate("dcr_baseline_protection", real, independent, types)
    assert result.interval[0] <= 1.0 <= result.interval[1]
