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
    {
        "sex": ["F", "F", "M", "M", "M", "F"],
        "age": [30, 40, 30, 30, 50, None],
        "income": ["lo", "lo", "lo", "lo", "hi", "hi"],
    }
)

TYPES = {"sex": ColumnType.CATEGORICAL, "age": ColumnType.NUMERIC, "income": ColumnType.CATEGORICAL}


def evaluate(name, holdout=None, **params):
    hold = None if holdout is None else Dataset("holdout", "holdout", holdout)
    release = Release(
        "r", Dataset("original", "original", ORIGINAL), (Dataset("synthetic", "s", SYNTHETIC),), hold, TYPES
    )
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("sex", "age"), ("income",)), seed=1)
    spec = registry.get_metric(name)
    return spec.evaluate(ctx, spec.params(**params), {})


def test_replicated_uniques_with_its_denominator_and_the_unique_share():
    result = evaluate("replicated_uniques")
    assert result.value == pytest.approx(3 / 7) and result.sample_size == 7
    assert result.details["per_set"][0]["records"] == 3 and result.details["unique_in_original_UiO"] == pytest.approx(
        3 / 7
    )


def test_disco_with_its_original_data_baselines():
    result = evaluate("disco")
    assert result.value == pytest.approx(5 / 7)
    assert result.details["disclosive_in_original_DiO"] == pytest.approx(5 / 7)
    assert result.details["key_in_synthetic_iS"] == 1.0
    assert result.interval[0] < 5 / 7 < result.interval[1]


def test_tcap_with_the_marginal_guess_as_baseline():
    result = evaluate("tcap", keys=["sex", "age"], target="income")
    assert result.value == pytest.approx(0.8) and result.baseline == pytest.approx(18 / 35) and result.sample_size == 5


def test_with_a_holdout_the_value_is_the_excess_over_the_holdouts_share():
    # Holdout: (F,30,lo) unique and replicated as a synthetic unique; (M,60,hi) unique, key absent; (M,30,hi) x2.
    holdout = pd.DataFrame({"sex": ["F", "M", "M", "M"], "age": [30, 60, 30, 30], "income": ["lo", "hi", "hi", "hi"]})
    repu = evaluate("replicated_uniques", holdout=holdout)
    assert repu.raw == pytest.approx(3 / 7) and repu.baseline == pytest.approx(1 / 4)
    assert repu.value == pytest.approx(3 / 7 - 1 / 4)
    # DiSCO of the holdout: (F,30,lo) right; (M,30,hi) x2 get lo: 1 of 4.
    disco = evaluate("disco", holdout=holdout)
    assert disco.value == pytest.approx(5 / 7 - 1 / 4) and disco.interval[0] < disco.value < disco.interval[1]
    assert evaluate("disco", holdout=holdout, baseline="none").value == pytest.approx(5 / 7)
