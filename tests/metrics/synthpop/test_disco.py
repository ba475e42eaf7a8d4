"""DiSCO (numbers by hand in cases/disco.yaml); here what the cases cannot show."""

import pytest

from tests.metrics.synthpop.example import evaluate


def test_a_target_named_among_the_keys_leaves_the_keys():
    # Keys (sex, age, income) with target income are keys (sex, age): DiSCO = 5/7 by hand (cases/disco.yaml).
    result = evaluate("disco", keys=["sex", "age", "income"], target="income")
    assert result.value == pytest.approx(5 / 7)
    assert result.details.keys == ["sex", "age"]


def test_the_target_defaults_to_the_attackers_first_secret():
    assert evaluate("disco").details.target == "income"
