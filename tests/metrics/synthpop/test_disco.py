"""DiSCO (numbers by hand in cases/disco.yaml); here what the cases cannot show."""

import pandas as pd
import pytest

from tests.metrics.synthpop.example import evaluate


def test_a_target_named_among_the_keys_leaves_the_keys():
    # Keys (sex, age, income) with target income are keys (sex, age): DiSCO = 5/7 by hand (cases/disco.yaml).
    result = evaluate("disco", keys=["sex", "age", "income"], target="income")
    assert result.value == pytest.approx(5 / 7)
    assert result.details.keys == ["sex", "age"]


def test_the_target_defaults_to_the_attackers_first_secret():
    assert evaluate("disco").details.target == "income"


def test_a_numeric_target_disclosed_to_within_its_group_counts_once_grouped():
    # Women aged 10 and men aged 50 (target age, key sex); the synthetic set has everyone a year older, so no
    # exact age is disclosed. Two groups: ages 10 10 11 11 50 50 51 51 (R type 7) cut at the median
    # 11 + (1/2)(50 - 11) = 30.5; fewer than 3 groups, so synthpop's equal widths, linspace(10, 51, 3): the
    # same breaks. Each woman's age group (the lower) is the one every synthetic woman has: DiSCO 4/4.
    original = pd.DataFrame({"sex": ["F", "F", "M", "M"], "age": [10, 10, 50, 50], "income": ["lo"] * 4})
    older = original.assign(age=original["age"] + 1)
    exact = evaluate("disco", synthetic=older, original=original, keys=["sex"], target="age")
    assert exact.value == 0
    grouped = evaluate("disco", synthetic=older, original=original, keys=["sex"], target="age", group_numeric_target=2)
    assert grouped.value == pytest.approx(1.0)
    assert grouped.details.key_groups == {"age": pytest.approx([10, 30.5, 51])}
