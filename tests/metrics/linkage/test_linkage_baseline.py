"""A linkage rule's rate against chance and the holdout control (policycheck.metrics.linkage.baseline)."""

import pandas as pd
import pytest

from policycheck.core.errors import EvaluationError
from policycheck.core.stats import clopper_pearson, clopper_pearson_share, newcombe_difference
from tests.metrics.linkage.releases import COPY, REVERSED, evaluate, make_release, release_of, with_holdout


def test_against_chance_alone_the_interval_is_clopper_pearson_shifted_by_chance():
    # Raw 2/4 against chance 1/4 (cases/linkage_range_narrowing.yaml): one baseline, no Bonferroni split.
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5)
    lo, hi = clopper_pearson(2, 4, 0.95)
    assert result.interval == pytest.approx((lo - 0.25, hi - 0.25))
    assert result.baseline_label.startswith("chance")
    assert result.details.baseline.level == 0.95


def test_against_both_baselines_each_interval_is_at_the_bonferroni_level_for_two():
    # Raw 4/4, chance 1/4, holdout 2/4 (cases/linkage_exact_disclosure.yaml): the smaller difference's interval.
    result = evaluate("linkage_exact_disclosure", with_holdout(COPY))
    level = 1 - 0.05 / 2
    lo_c, hi_c = clopper_pearson(4, 4, level)
    lo_h, hi_h = newcombe_difference(4, 4, 2, 4, level)
    assert result.interval == pytest.approx((min(lo_c - 0.25, lo_h), min(hi_c - 0.25, hi_h)))
    assert result.details.baseline.level == pytest.approx(level)
    assert "holdout records" in result.baseline_label


def test_a_named_baseline_is_the_only_one_considered():
    release = with_holdout(COPY)
    assert evaluate("linkage_exact_disclosure", release, baseline="chance").value == pytest.approx(0.75)
    holdout = evaluate("linkage_exact_disclosure", release, baseline="holdout")
    assert holdout.interval == pytest.approx(newcombe_difference(4, 4, 2, 4, 0.95))
    assert holdout.details.baseline.rule.endswith("the larger of holdout, the better for the attacker")


def test_baseline_none_bounds_the_raw_rate_and_reports_the_baseline():
    result = evaluate("linkage_exact_disclosure", with_holdout(COPY), baseline="none")
    assert result.value == 1.0 and result.raw is None and result.baseline == pytest.approx(0.25)
    assert result.interval == pytest.approx(clopper_pearson(4, 4, 0.95))
    assert result.details.baseline.level is None


def test_holdout_baseline_without_a_holdout_is_refused():
    with pytest.raises(EvaluationError, match="no holdout"):
        evaluate("linkage_exact_disclosure", make_release(COPY), baseline="holdout")


def test_records_linked_to_the_same_synthetic_records_count_as_one():
    # Four records with a = 1 and secret 10, four with a = 2 and secrets 20, 30, 40, 50; a copy. The four
    # a = 1 records all link to the four synthetic a = 1 records (range [10, 10]: narrowed), the four a = 2
    # records to the other four (range [20, 50], 0.75 of the range 40: not narrowed). Raw 4/8, but two
    # clusters: Kish's variance ((4 - 2)^2 + (0 - 2)^2) / 8^2 = 1/8 gives p (1 - p) / variance = 2 effective
    # records, the interval of 1 in 2.
    frame = pd.DataFrame({"a": [1.0] * 4 + [2.0] * 4, "s": [10.0] * 4 + [20.0, 30.0, 40.0, 50.0]})
    result = evaluate("linkage_range_narrowing", release_of(frame, frame.copy()), fraction=0.1, baseline="none")
    assert result.value == 0.5
    assert result.details.baseline.effective_records == pytest.approx(2.0)
    assert result.interval == pytest.approx(clopper_pearson(1, 2))


def test_records_linked_to_one_record_through_different_attributes_share_a_cluster():
    # Original a = 1, 2, 3; the synthetic set holds a = 2 only, so every record links to it and
    # reads 20: one cluster of three records, one of which (a = 2) is narrowed.
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": [10.0, 20.0, 30.0]})
    synthetic = pd.DataFrame({"a": [2.0, 2.0, 2.0], "s": [20.0, 20.0, 20.0]})
    result = evaluate(
        "linkage_range_narrowing", release_of(original, synthetic), fraction=0.1, baseline="none", mappings=["released"]
    )
    assert result.value == pytest.approx(1 / 3)
    # One cluster: Kish's variance (1 - 3 p)^2 / 3^2 = 0, so the cluster counts as one trial.
    assert result.details.baseline.effective_records == 1.0


def test_a_persons_records_linked_to_different_synthetic_records_are_a_second_clustering():
    # Panel data: id column nr names four people with two records each, one in each of two `a` groups that
    # link to their own synthetic records (a copy). Groups a = 1, 2 are narrowed (one secret each), a = 3, 4
    # are not: raw 4/8. By linked records four clusters of two, V = 4 * 1^2 / 8^2: 4 effective records. The
    # people {p, q} narrowed twice each, {r, t} never add 4 / 8^2, less the records' own 8 * (1/2)^2 / 8^2:
    # the two-way variance 6/64 makes 0.25 / (6/64) = 8/3 effective records.
    frame = pd.DataFrame(
        {"a": [1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 4.0, 4.0], "s": [10.0, 10.0, 20.0, 20.0, 30.0, 50.0, 35.0, 60.0]}
    )
    people = pd.DataFrame({"nr": ["p", "q", "p", "q", "r", "t", "r", "t"]})
    without = evaluate("linkage_range_narrowing", release_of(frame, frame.copy()), fraction=0.1, baseline="none")
    assert without.details.baseline.effective_records == pytest.approx(4.0)
    result = evaluate(
        "linkage_range_narrowing", release_of(frame, frame.copy(), people=people), fraction=0.1, baseline="none"
    )
    assert result.value == 0.5
    assert result.details.baseline.effective_records == pytest.approx(8 / 3)
    assert result.interval == pytest.approx(clopper_pearson_share(0.5, 8 / 3))
