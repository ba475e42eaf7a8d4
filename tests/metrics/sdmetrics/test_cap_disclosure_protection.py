"""CAP disclosure protection (numbers by hand and from SDMetrics in cases/); here what the cases cannot show."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.release.model import ColumnType
from tests.metrics.sdmetrics.example import evaluate

REAL = pd.DataFrame({"key": ["a", "a", "b", "c", "d"], "secret": ["x", "y", "x", "y", "z"]})
SYNTHETIC = pd.DataFrame({"key": ["a", "a", "a", "b", "d"], "secret": ["x", "x", "y", "y", "z"]})
TYPES = {"key": ColumnType.CATEGORICAL, "secret": ColumnType.CATEGORICAL}


def test_the_note_counts_the_real_records_whose_key_the_synthetic_data_lacks():
    # Key c is the only real key the synthetic data lacks: 1 of 5.
    assert evaluate("cap_disclosure_protection", REAL, SYNTHETIC, TYPES).notes == (
        "1 of 5 real records have a key the synthetic data lacks; SDMetrics' CAP leaves them out.",
    )


def test_a_sensitive_column_with_one_value_leaves_the_protection_undefined():
    # The blind guess is always right (1 - 1/1 = 0): the score divides by zero.
    one_value = REAL.assign(secret="x")
    with pytest.raises(EvaluationError, match="the sensitive columns take one value only"):
        evaluate("cap_disclosure_protection", one_value, SYNTHETIC.assign(secret="x"), TYPES)


def test_no_matching_key_leaves_the_protection_undefined():
    elsewhere = SYNTHETIC.assign(key="z")
    with pytest.raises(EvaluationError, match="no real record's key occurs in the synthetic data"):
        evaluate("cap_disclosure_protection", REAL, elsewhere, TYPES)


def test_baseline_holdout_without_a_holdout_is_an_error_not_sdmetrics_score():
    frame = pd.DataFrame({"key": ["a", "b"], "secret": ["x", "y"]})
    types = {"key": ColumnType.CATEGORICAL, "secret": ColumnType.CATEGORICAL}
    with pytest.raises(EvaluationError, match="baseline: holdout needs a holdout set, and the release has none"):
        evaluate("cap_disclosure_protection", frame, frame, types, baseline="holdout")
