"""The worse of the mappings (policycheck.metrics.linkage.mappings): reverse mapping and the values as released."""

import pandas as pd
import pytest

from policycheck.core.stats import clopper_pearson
from policycheck.metrics import registry
from tests.metrics.linkage.releases import bootstrap_release, evaluate, release_of


def test_both_mappings_are_the_default():
    assert registry.get_metric("linkage_range_narrowing").params().mappings == ["reverse", "released"]


def test_default_mappings_take_the_worse_with_a_bonferroni_interval():
    # Reverse mapping discloses 0 of 4, the values as released 3 of 4 (cases/linkage_exact_disclosure.yaml).
    result = evaluate(
        "linkage_exact_disclosure", bootstrap_release(), baseline="none", mappings=["reverse", "released"]
    )
    assert result.value == 0.75 and result.details.mapping == "released"
    assert {m: r.value for m, r in result.details.mappings.items()} == {"reverse": 0.0, "released": 0.75}
    # Each interval at 1 - 0.05 / 2; the larger value lies between the larger ends.
    reverse, released = clopper_pearson(0, 4, 0.975), clopper_pearson(3, 4, 0.975)
    assert result.interval == pytest.approx((max(reverse[0], released[0]), max(reverse[1], released[1])))
    assert result.confidence == 0.95
    assert (result.details.bonferroni.alternatives, result.details.bonferroni.level) == (2, pytest.approx(0.975))


def test_a_protection_takes_the_smaller_of_the_mappings():
    result = evaluate(
        "linkage_consistently_misled", bootstrap_release(), baseline="none", mappings=["reverse", "released"]
    )
    values = {m: r.value for m, r in result.details.mappings.items()}
    assert result.value == min(values.values())
    assert "smallest lower end" in result.details.bonferroni.rule


def test_an_interval_end_from_the_other_mapping_is_named_in_a_note():
    # Eight records: the values as released narrow more ranges than chance, the reverse mapping fewer,
    # yet the reverse mapping's interval reaches higher: the rule's upper end is its.
    original = pd.DataFrame({"a": [4.0, 0, 0, 1, 0, 4, 4, 2], "s": [0.0, 1, 6, 8, 12, 9, 5, 3]})
    synthetic = pd.DataFrame({"a": [3.0, 3, 0, 0, 2, 1, 4, 2], "s": [8.0, 8, 13, 11, 3, 14, 15, 19]})
    result = evaluate(
        "linkage_range_narrowing",
        release_of(original, synthetic),
        baseline="chance",
        mappings=["reverse", "released"],
        fraction=0.2,
    )
    reverse, released = result.details.mappings["reverse"], result.details.mappings["released"]
    assert result.details.mapping == "released" and result.value == released.value > reverse.value
    assert result.interval == (released.interval[0], reverse.interval[1])
    (note,) = [n for n in result.notes if n.startswith("The interval holds")]
    assert f"its upper end {reverse.interval[1]:.4g} is the reverse mapping's" in note
    assert "lower end" not in note
