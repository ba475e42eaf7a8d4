"""synthpop's measures through the registry (hand-computed in tests/methods/test_synthpop_disclosure.py)."""

import pandas as pd
import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext
from policycheck.release.model import ColumnType, Dataset, Release

# The example of tests/methods/test_synthpop_disclosure.py.
ORIGINAL = pd.DataFrame(
    {
        "sex": ["F", "F", "M", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, 50, None],
        "income": ["lo", "hi", "lo", "lo", "hi", "lo", "hi"],
    }
)
SYNTHETIC = pd.DataFrame(
    {"sex": ["F", "F", "M", "M", "M", "F"], "age": [30, 40, 30, 30, 50, None], "income": ["lo", "lo", "lo", "lo", "hi", "hi"]}
)

TYPES = {"sex": ColumnType.CATEGORICAL, "age": ColumnType.NUMERIC, "income": ColumnType.CATEGORICAL}


def evaluate(name, **params):
    release = Release("r", Dataset("original", "original", ORIGINAL), (Dataset("synthetic", "s", SYNTHETIC),), None, TYPES)
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("sex", "age"), ("income",)), seed=1)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})


def test_replicated_uniques_with_its_denominator_and_the_unique_share():
    result = evaluate("replicated_uniques")
    assert result.value == pytest.approx(3 / 7) and result.sample_size == 7
    assert result.details["per_set"][0]["records"] == 3 and result.details["unique_in_original_UiO"] == pytest.approx(3 / 7)


def test_disco_with_its_original_data_baselines():
    result = evaluate("disco")
    assert result.value == pytest.approx(5 / 7)
    assert result.details["disclosive_in_original_DiO"] == pytest.approx(5 / 7)
    assert result.details["key_in_synthetic_iS"] == 1.0
    assert result.interval[0] < 5 / 7 < result.interval[1]


def test_tcap_with_the_marginal_guess_as_baseline():
    result = evaluate("tcap", keys=["sex", "age"], target="income")
    assert result.value == pytest.approx(0.8) and result.baseline == pytest.approx(18 / 35) and result.sample_size == 5
