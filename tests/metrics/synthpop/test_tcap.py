"""TCAP (numbers by hand in cases/tcap.yaml); here what the cases cannot show."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.synthpop.example import ORIGINAL, evaluate


def test_tcap_is_undefined_when_no_key_that_fixes_the_target_occurs_in_the_synthetic_data():
    # Only (M, 50) leaves the target open in the original, and it is the only key the synthetic data holds.
    synthetic = pd.DataFrame({"sex": ["M"], "age": [50], "income": ["hi"]})
    with pytest.raises(EvaluationError, match="TCAP is undefined"):
        evaluate("tcap", synthetic=synthetic)


def test_the_excess_interval_of_two_constant_samples_is_their_difference():
    # A copy attributes every targeted original record its target (all 1); the holdout's (M, 30) people carry
    # hi, which the copy's (M, 30) records never do (all 0): every resample's difference is 1.
    holdout = pd.DataFrame({"sex": ["M", "M"], "age": [30, 30], "income": ["hi", "hi"]})
    result = evaluate("tcap", synthetic=ORIGINAL, holdout=holdout, baseline="holdout")
    assert (result.value, result.interval, result.baseline) == (1.0, (1.0, 1.0), 0.0)


def test_an_undefined_tcap_counts_zero_against_the_holdouts():
    # The synthetic data holds only (M, 50), which does not fix the target in the original; in the holdout it
    # fixes hi, and the synthetic (M, 50) record carries hi: TCAP 0 (undefined) minus the holdout's 1.
    synthetic = pd.DataFrame({"sex": ["M"], "age": [50], "income": ["hi"]})
    holdout = pd.DataFrame({"sex": ["M"], "age": [50], "income": ["hi"]})
    result = evaluate("tcap", synthetic=synthetic, holdout=holdout, baseline="holdout")
    assert (result.value, result.raw, result.baseline, result.sample_size) == (-1.0, None, 1.0, 0)
    assert result.notes[0].startswith("No original record whose key fixes the target has its key in the synthetic")


def test_keys_the_synthetic_data_rarely_repeats_are_named_with_their_share():
    # Every age shifted by one, the missing one kept: 1 of the 7 original ages occurs in the synthetic data
    # (14%), every sex does (not named). Only (F, missing) still matches: TCAP 1 over that one record.
    synthetic = ORIGINAL.assign(age=[31, 41, 31, 31, 51, 51, None])
    result = evaluate("tcap", synthetic=synthetic)
    assert (result.value, result.sample_size) == (1.0, 1)
    assert result.notes == (
        "Key values the synthetic data rarely repeats exactly (share of original records whose value occurs in it): "
        "age (14%). Keys are looked up by exact value, so few records can match and this measure says little; "
        "group them (params.group_numeric_keys, synthpop's ngroups_keys), or choose categorical keys.",
    )


def test_baseline_holdout_without_a_holdout_is_an_error_not_the_raw_tcap():
    with pytest.raises(EvaluationError, match="baseline: holdout needs a holdout set, and the release has none"):
        evaluate("tcap", baseline="holdout")
