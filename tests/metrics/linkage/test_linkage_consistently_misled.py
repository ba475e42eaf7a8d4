"""linkage_consistently_misled through the registry (known answers: cases/linkage_consistently_misled.yaml)."""

import pytest

from policycheck.core.stats import clopper_pearson, newcombe_difference
from tests.metrics.linkage.releases import COPY, REVERSED, evaluate, make_release, with_holdout


def test_consistently_misled_with_one_set_is_reported_as_single_set():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED), baseline="none")
    # Identified 40, 30, 20, 10 against 10, 20, 30, 40: every record is on a wrong side.
    assert result.value == 1.0 and result.details.misled == 4
    assert result.details.single_set is True
    assert any("Only one synthetic set" in note for note in result.notes)


def test_consistently_misled_drops_when_a_second_set_brackets_the_truth():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED, COPY), baseline="none")
    assert result.value == 0.0
    assert [r.value for r in result.details.by_number_of_sets] == [1.0, 0.0]


def test_misled_takes_the_smaller_baseline_and_the_interval_of_the_larger_difference():
    # REVERSED misleads all four original records, two of four holdout records; chance 3/4 (see the cases file).
    # Higher is safer: the attacker's better baseline is the smaller, and the interval that of the larger difference.
    result = evaluate("linkage_consistently_misled", with_holdout(REVERSED))
    level = 1 - 0.05 / 2
    lo_c, hi_c = clopper_pearson(4, 4, level)
    lo_h, hi_h = newcombe_difference(4, 4, 2, 4, level)
    assert result.interval == pytest.approx((max(lo_c - 0.75, lo_h), max(hi_c - 0.75, hi_h)))
    assert result.details.baseline.rule.startswith("value = raw rate - baseline; the baseline is the smaller of")
