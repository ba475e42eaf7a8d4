"""repU (numbers by hand in cases/replicated_uniques.yaml); here what the cases cannot show."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.synthpop.example import ORIGINAL, evaluate


def test_keys_default_to_the_attackers_quasi_identifiers():
    # (sex, age) are the attacker's quasi-identifiers: repU = 3/7 by hand (cases/replicated_uniques.yaml).
    assert evaluate("replicated_uniques").value == pytest.approx(3 / 7)


def test_without_a_holdout_the_note_says_the_value_includes_chance_matches():
    assert evaluate("replicated_uniques").notes == (
        "The release has no holdout, so the value is synthpop's raw share, chance matches included.",
    )


def test_without_keys_or_quasi_identifiers_the_measure_cannot_run():
    with pytest.raises(EvaluationError, match="synthpop's measures need key columns"):
        evaluate("replicated_uniques", quasi_identifiers=())


def test_a_noisy_copy_replicates_uniques_once_numeric_keys_are_grouped():
    # Three women aged 20, 40, 60, each unique; the synthetic set has them one year older. Exact keys
    # replicate none. Three groups: ages 20 21 40 41 60 61 (R type 7) cut at 20, 21 + (2/3)(40 - 21) = 33.667,
    # 41 + (1/3)(60 - 41) = 47.333 and 61 put each woman and her noisy copy in a group of their own: repU 3/3.
    original = pd.DataFrame({"sex": ["F", "F", "F"], "age": [20, 40, 60], "income": ["lo", "hi", "lo"]})
    noisy = original.assign(age=original["age"] + 1)
    assert evaluate("replicated_uniques", synthetic=noisy, original=original).value == 0
    grouped = evaluate("replicated_uniques", synthetic=noisy, original=original, group_numeric_keys=3)
    assert grouped.value == pytest.approx(1.0)
    assert grouped.details.key_groups == {"age": pytest.approx([20, 21 + 38 / 3, 41 + 19 / 3, 61])}


def test_grouped_keys_are_not_named_as_keys_the_synthetic_data_cannot_match():
    # The example's ages one year off: only the missing age occurs in both.
    noisy = ORIGINAL.assign(age=ORIGINAL["age"] + 1)
    assert evaluate("replicated_uniques", synthetic=noisy).details.unmatched_keys == {"age": pytest.approx(1 / 7)}
    assert evaluate("replicated_uniques", synthetic=noisy, group_numeric_keys=3).details.unmatched_keys == {}
