"""repU (numbers by hand in cases/replicated_uniques.yaml); here what the cases cannot show."""

import pytest

from policycheck.core.errors import EvaluationError
from tests.metrics.synthpop.example import evaluate


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
