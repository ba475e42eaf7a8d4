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
