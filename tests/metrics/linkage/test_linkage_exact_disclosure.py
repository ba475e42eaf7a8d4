"""linkage_exact_disclosure through the registry (its known answers are in cases/linkage_exact_disclosure.yaml)."""

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.release.model import ColumnType, Dataset, Release
from tests.metrics.linkage.releases import COPY, ORIGINAL, REVERSED, TYPES, evaluate, make_release


def test_exact_disclosure_counts_records_revealed_by_k_sets():
    release = make_release(COPY, REVERSED)
    assert evaluate("linkage_exact_disclosure", release, k=1, baseline="none").value == 1.0
    assert evaluate("linkage_exact_disclosure", release, k=2, baseline="none").value == 0.0
    result = evaluate("linkage_exact_disclosure", release)
    assert [r.value for r in result.details.per_set] == [1.0, 0.0]
    # Every record is revealed by exactly one of the two sets.
    assert result.details.sets_disclosing == [0, 4, 0]


def test_exact_disclosure_refuses_k_above_the_number_of_sets():
    with pytest.raises(EvaluationError, match="k = 3 exceeds the number of released synthetic sets"):
        evaluate("linkage_exact_disclosure", make_release(COPY, REVERSED), k=3)


def test_the_number_of_sets_starts_at_k():
    result = evaluate("linkage_exact_disclosure", make_release(COPY, REVERSED, COPY), k=2, baseline="none")
    # Two of the three sets are copies: with the first two sets no record is revealed twice, with all three every one.
    assert [(r.sets, r.value) for r in result.details.by_number_of_sets] == [(2, 0.0), (3, 1.0)]


def test_nominal_secret_with_a_policy_order_is_disclosed():
    result = evaluate(
        "linkage_exact_disclosure", make_release(COPY), secrets=("c",), orders={"c": ["x", "y", "z"]}, baseline="none"
    )
    assert result.value == 1.0


def test_ordinal_secret_is_ranked_by_the_manifest_order():
    original = ORIGINAL.assign(g=["high", "low", "mid", "high"])
    types = {**TYPES, "g": ColumnType.ORDINAL}
    synthetic = original.assign(g=["mid", "low", "mid", "mid"])
    release = Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "synthetic[1]", synthetic),),
        None,
        types,
        orders={"g": ["low", "mid", "high"]},
    )
    # Order low < mid < high. Synthetic ranks (ties in row order): 2, 1, 3, 4; the original by
    # rank is low, mid, high, high; so rows 1..4 read mid, low, high, high against the true
    # high, low, mid, high: rows 2 and 4 are disclosed.
    result = evaluate("linkage_exact_disclosure", release, secrets=("g",), show_values=True, baseline="none")
    assert result.value == 0.5
    assert [r.row for r in result.details.most_narrowed] == [2, 4]
    assert result.details.most_narrowed[0].values_identified == [["low"]]
    assert result.details.ranking["g"].model_dump() == {
        "kind": "ordinal",
        "ranked_by": "order declared in the manifest",
    }
