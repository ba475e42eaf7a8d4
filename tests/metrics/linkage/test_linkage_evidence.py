"""The evidence every linkage rule reports (policycheck.metrics.linkage.evidence)."""

import json

import numpy as np
import pandas as pd

from tests.metrics.linkage.releases import COPY, ORIGINAL, REVERSED, TYPES, evaluate, make_release, release_of


def test_listed_records_show_rows_but_not_values_by_default():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, baseline="none")
    rows = result.details.most_narrowed
    assert [r.row for r in rows] == [2, 3]
    assert all(r.true_value is None and r.ranks_identified is None for r in rows)
    json.dumps(result.details.to_report())
    json.dumps(result.charts)


def test_listed_records_show_values_when_the_policy_allows():
    result = evaluate(
        "linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, show_values=True, baseline="none"
    )
    row2 = result.details.most_narrowed[0]
    assert row2.true_value == 20 and row2.identified_range == [20, 30]
    assert row2.ranks_identified == [[2], [3]] and row2.values_identified == [[20], [30]]


def test_a_larger_synthetic_set_is_presampled_and_recorded():
    bigger = pd.concat([COPY, COPY], ignore_index=True)
    result = evaluate("linkage_exact_disclosure", make_release(bigger))
    record = result.details.presampling[0]
    assert (record.action, record.from_rows, record.to_rows) == ("sub-sampled", 8, 4)
    assert record.seed == 3 and record.rng_key == ["linkage", "presample", 0]
    assert any("randomly sub-sampled" in note for note in result.notes)


def test_records_with_a_missing_secret_are_left_out_of_the_denominators():
    original = ORIGINAL.assign(s=[10.0, np.nan, 30.0, 40.0])
    release = release_of(original, original.copy(), TYPES)
    # The copy's secret ranks map row 2 to the missing value: it identifies nothing there, and
    # rows 1, 3 and 4 are disclosed: 3 of the 3 records with a secret.
    result = evaluate("linkage_exact_disclosure", release, baseline="none")
    assert result.value == 1.0 and result.sample_size == 3
    assert result.details.records_without_secret == 1
    assert any("1 original records have no value" in note for note in result.notes)
    for name in ("linkage_range_narrowing", "linkage_consistently_misled"):
        assert evaluate(name, release).sample_size == 3


def test_a_categorical_linkage_attribute_is_ranked_by_frequency_and_noted():
    result = evaluate("linkage_exact_disclosure", make_release(COPY), qis=("a", "s", "c"))
    assert result.details.ranking["c"].kind == "nominal"
    assert any("Categorical attribute c has no natural order" in note for note in result.notes)
