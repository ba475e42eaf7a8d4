"""The worse of the mappings (policycheck.metrics.linkage.mappings): reverse mapping and the values as released."""

import pytest

from policycheck.core.stats import clopper_pearson
from policycheck.metrics import registry
from tests.metrics.linkage.releases import bootstrap_release, evaluate


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
