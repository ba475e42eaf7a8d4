"""DCR baseline protection (numbers by hand in cases/); here what the cases cannot show."""

import numpy as np
import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.release.model import ColumnType
from tests.metrics.sdmetrics.example import evaluate


def test_data_drawn_like_the_random_baseline_has_an_interval_around_full_protection():
    rng = np.random.default_rng(0)
    real = pd.DataFrame({"x": rng.uniform(0, 1, 300), "c": rng.choice(list("abcdefgh"), 300)})
    types = {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}
    independent = pd.DataFrame({"x": rng.uniform(0, 1, 300), "c": rng.choice(list("abcdefgh"), 300)})
    # Drawn exactly as SDMetrics' random records are: the ratio's expectation is 1.
    result = evaluate("dcr_baseline_protection", real, independent, types)
    assert result.interval[0] <= 1.0 <= result.interval[1]


def test_random_records_that_copy_real_ones_leave_the_protection_undefined():
    # One categorical column: every random record takes a real value, so the random median DCR is 0.
    real = pd.DataFrame({"c": ["a", "b", "c", "a"]})
    with pytest.raises(EvaluationError, match="half the random records copy a real record"):
        evaluate("dcr_baseline_protection", real, real.copy(), {"c": ColumnType.CATEGORICAL})


def _dense_population(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """Records on a curve in three numeric columns: real people crowd together, far from a uniform box."""
    t = rng.uniform(0, 1, n)
    return pd.DataFrame({"a": t, "b": t**2 + rng.normal(0, 0.005, n), "c": np.sqrt(t) + rng.normal(0, 0.005, n)})


def test_a_fresh_sample_of_a_dense_population_scores_near_zero_against_random_records():
    # The diamonds finding (ggplot2's table, 5,000 + 5,000 real records: 0.04): real people sit
    # far closer to each other than random records of their schema do.
    rng = np.random.default_rng(3)
    types = dict.fromkeys("abc", ColumnType.NUMERIC)
    real, fresh = _dense_population(rng, 2000), _dense_population(rng, 2000)
    result = evaluate("dcr_baseline_protection", real, fresh, types)
    assert result.interval[1] < 0.05


def test_a_fresh_sample_of_a_dense_population_is_no_closer_than_the_holdout():
    rng = np.random.default_rng(3)
    types = dict.fromkeys("abc", ColumnType.NUMERIC)
    real, fresh, holdout = (_dense_population(rng, 2000) for _ in range(3))
    result = evaluate("dcr_baseline_protection", real, fresh, types, holdout=holdout, baseline="holdout")
    assert result.interval[0] <= 1.0 <= result.interval[1]
    assert result.interval[0] > 0.8


def test_a_holdout_mostly_equal_to_training_records_leaves_the_holdout_baseline_undefined():
    # Over half the holdout records copy a training record: the median cannot tell copies from chance.
    real = pd.DataFrame({"c": ["a", "b", "c", "a"]})
    holdout = pd.DataFrame({"c": ["a", "b", "d"]})
    with pytest.raises(EvaluationError, match="half the holdout records copy a training record"):
        evaluate(
            "dcr_baseline_protection",
            real,
            real.copy(),
            {"c": ColumnType.CATEGORICAL},
            holdout=holdout,
            baseline="holdout",
        )


def test_the_holdout_baseline_without_a_holdout_is_an_evaluation_error():
    real = pd.DataFrame({"x": [0.0, 4.0, 8.0]})
    with pytest.raises(EvaluationError, match="needs a holdout set"):
        evaluate("dcr_baseline_protection", real, real.copy(), {"x": ColumnType.NUMERIC}, baseline="holdout")
