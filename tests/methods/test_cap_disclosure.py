"""SDMetrics' CAP disclosure protection on a hand-computed example."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.cap_disclosure import cap_disclosure

REAL = pd.DataFrame({"key": ["a", "a", "b", "c", "d"], "secret": ["x", "y", "x", "y", "z"]})
SYNTHETIC = pd.DataFrame({"key": ["a", "a", "a", "b", "d"], "secret": ["x", "x", "y", "y", "z"]})


def test_cap_of_each_real_record_is_the_share_of_synthetic_matches_carrying_its_secret():
    # (a, x): 2 of the 3 synthetic a's carry x; (a, y): 1/3; (b, x): 0/1; (c, y): key absent, left out; (d, z): 1/1.
    outcome = cap_disclosure(REAL, SYNTHETIC, ["key"], ["secret"])
    assert outcome.cap.tolist() == pytest.approx([2 / 3, 1 / 3, 0.0, 1.0])
    assert outcome.matched == 4 and outcome.total == 5
    # mean CAP 0.5; baseline 1 - 1/3 (three secrets); score 0.5 / (2/3) = 0.75.
    assert outcome.cap_protection == pytest.approx(0.5)
    assert outcome.baseline_protection == pytest.approx(2 / 3)
    assert outcome.score() == pytest.approx(0.75)


def test_missing_values_are_a_category_and_continuous_columns_are_binned_on_the_real_range():
    real = pd.DataFrame({"age": [10.0, 20.0, 30.0, 40.0], "secret": ["x", None, "x", "y"]})
    # Two bins on the real [10, 40]: [10, 25] and (25, 40]; synthetic 99 falls in the open top bin.
    synthetic = pd.DataFrame({"age": [12.0, 99.0, 15.0], "secret": [None, "y", "x"]})
    outcome = cap_disclosure(real, synthetic, ["age"], ["secret"], continuous=["age"], bins=2)
    # Bin 0 in synthetic: (None, x); real 10 -> x: 1/2, real 20 -> None: 1/2. Bin 1: (y); real 30 -> x: 0, 40 -> y: 1.
    assert outcome.cap.tolist() == pytest.approx([0.5, 0.5, 0.0, 1.0])
    assert outcome.baseline_protection == pytest.approx(1 - 1 / 3)  # x, y and missing


def test_score_is_undefined_when_no_key_matches():
    outcome = cap_disclosure(REAL, SYNTHETIC.assign(key="zz"), ["key"], ["secret"])
    assert np.isnan(outcome.score())
