"""repU (numbers by hand in cases/replicated_uniques.yaml); here what the cases cannot show."""

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


# Every age one year off: exact lookups replicate only the missing-age unique (F, None).
NOISY_AGES = ORIGINAL.assign(age=ORIGINAL["age"] + 1)


def test_a_noisy_copy_replicates_uniques_once_numeric_keys_are_grouped():
    # Ages 30 30 30 31 31 31 40 41 50 50 51 51: the median (R type 7) is 31 + (1/2)(40 - 31) = 35.5, so two
    # groups [30, 35.5) and [35.5, 51]: (F, 30) -> (F, low), (F, 40) -> (F, high), (F, None) unique in both
    # sets -> repU 3/7, where the exact ages give 1/7.
    assert evaluate("replicated_uniques", synthetic=NOISY_AGES).value == pytest.approx(1 / 7)
    grouped = evaluate("replicated_uniques", synthetic=NOISY_AGES, group_numeric_keys=2)
    assert grouped.value == pytest.approx(3 / 7)
    assert grouped.details.key_groups == {"age": pytest.approx([30, 35.5, 51])}


def test_grouped_keys_are_not_named_as_keys_the_synthetic_data_cannot_match():
    exact = evaluate("replicated_uniques", synthetic=NOISY_AGES)
    assert exact.details.unmatched_keys == {"age": pytest.approx(1 / 7)}  # only the missing age occurs
    assert evaluate("replicated_uniques", synthetic=NOISY_AGES, group_numeric_keys=2).details.unmatched_keys == {}
