"""Linkage metrics (paper 000) through the registry, on a hand-computed release."""

import json

import pandas as pd
import pytest

from policycheck.metrics import registry
from policycheck.metrics.base import AttackerView, EvaluationContext, EvaluationError, Knowledge
from policycheck.release.model import ColumnType, Dataset, Release

ORIGINAL = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [10.0, 20.0, 30.0, 40.0], "c": ["x", "y", "y", "z"]})
# Set 1 copies the original; set 2 keeps `a` and reverses the secret.
COPY = ORIGINAL.copy()
REVERSED = ORIGINAL.assign(s=[40.0, 30.0, 20.0, 10.0])
TYPES = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}


def make_release(*sets: pd.DataFrame) -> Release:
    synthetic = tuple(Dataset("synthetic", f"synthetic[{m}]", f) for m, f in enumerate(sets, start=1))
    return Release("r", Dataset("original", "original", ORIGINAL), synthetic, None, TYPES)


def evaluate(name, release, secrets=("s",), qis=("a",), **params):
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", qis, secrets), seed=3)
    spec = registry.get_metric(name)
    parsed = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(parsed, release)}
    return spec.evaluate(ctx, parsed, needs)


def test_range_narrowing_over_two_sets():
    # Set 1 reveals 10, 20, 30, 40; set 2 points to 40, 30, 20, 10. Ranges: [10, 40],
    # [20, 30], [20, 30], [10, 40]; widths 1, 1/3, 1/3, 1 of the range 30: two records narrowed.
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5)
    assert result.value == 0.5
    assert [r["value"] for r in result.details["by_number_of_sets"]] == [1.0, 0.5]
    assert [r["value"] for r in result.details["per_set"]] == [1.0, 0.0]
    assert result.interval[0] <= 0.5 <= result.interval[1] and result.confidence == 0.95


def test_range_narrowing_lists_rows_but_not_values_by_default():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5)
    rows = result.details["most_narrowed"]
    assert [r["row"] for r in rows] == [2, 3]
    assert all("true_value" not in r and "ranks_identified" not in r for r in rows)
    json.dumps(result.details)
    json.dumps(result.charts)


def test_range_narrowing_shows_values_when_the_policy_allows():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, show_values=True)
    row2 = result.details["most_narrowed"][0]
    assert row2["true_value"] == 20 and row2["identified_range"] == [20, 30]
    assert row2["ranks_identified"] == [[2], [3]] and row2["values_identified"] == [[20], [30]]


def test_exact_disclosure_counts_records_revealed_by_k_sets():
    release = make_release(COPY, REVERSED)
    assert evaluate("linkage_exact_disclosure", release, k=1).value == 1.0
    assert evaluate("linkage_exact_disclosure", release, k=2).value == 0.0
    assert [r["value"] for r in evaluate("linkage_exact_disclosure", release).details["per_set"]] == [1.0, 0.0]


def test_exact_disclosure_refuses_k_above_the_number_of_sets():
    with pytest.raises(EvaluationError, match="k = 3 exceeds the number of released synthetic sets"):
        evaluate("linkage_exact_disclosure", make_release(COPY, REVERSED), k=3)


def test_consistently_misled_with_one_set_is_reported_as_single_set():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED))
    # Identified 40, 30, 20, 10 against 10, 20, 30, 40: every record is on a wrong side.
    assert result.value == 1.0
    assert result.details["single_set"] is True
    assert any("Only one synthetic set" in note for note in result.notes)


def test_consistently_misled_drops_when_a_second_set_brackets_the_truth():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED, COPY))
    assert result.value == 0.0
    assert [r["value"] for r in result.details["by_number_of_sets"]] == [1.0, 0.0]


def test_nominal_secret_without_an_order_is_refused():
    with pytest.raises(EvaluationError, match="secret column 'c' is categorical without an order"):
        evaluate("linkage_range_narrowing", make_release(COPY), secrets=("c",))


def test_nominal_secret_with_a_policy_order_is_narrowed():
    result = evaluate("linkage_exact_disclosure", make_release(COPY), secrets=("c",), orders={"c": ["x", "y", "z"]})
    assert result.value == 1.0


def test_secret_defaults_to_the_only_declared_secret_and_refuses_several():
    assert evaluate("linkage_exact_disclosure", make_release(COPY)).details["secret"] == "s"
    with pytest.raises(EvaluationError, match="name the one column"):
        evaluate("linkage_exact_disclosure", make_release(COPY), secrets=("s", "c"))


def test_linking_on_the_secret_is_refused():
    with pytest.raises(EvaluationError, match="includes the secret 's'"):
        evaluate("linkage_exact_disclosure", make_release(COPY), attributes=["a", "s"])


def test_default_attributes_drop_the_secret_from_the_quasi_identifiers():
    result = evaluate("linkage_exact_disclosure", make_release(COPY), qis=("a", "s", "c"))
    assert result.details["attributes"] == ["a", "c"]
    assert result.details["ranking"]["c"]["kind"] == "nominal"


def test_a_larger_synthetic_set_is_presampled_and_recorded():
    bigger = pd.concat([COPY, COPY], ignore_index=True)
    result = evaluate("linkage_exact_disclosure", make_release(bigger))
    record = result.details["presampling"][0]
    assert (record["action"], record["from_rows"], record["to_rows"]) == ("sub-sampled", 8, 4)
    assert record["seed"] == 3 and record["rng_key"] == ["linkage", "presample", 0]


def test_metrics_need_the_maximum_knowledge_attacker():
    for name in ("linkage_range_narrowing", "linkage_exact_disclosure", "linkage_consistently_misled"):
        spec = registry.get_metric(name)
        assert spec.knowledge == {Knowledge.ORIGINAL, Knowledge.SYNTHETIC}
        assert spec.inputs == {"original", "synthetic"}


def test_fraction_outside_zero_one_is_a_params_error():
    spec = registry.get_metric("linkage_range_narrowing")
    with pytest.raises(ValueError):
        spec.params(fraction=0.0)
    with pytest.raises(ValueError):
        spec.params(fraction=1.5)


def test_ordinal_secret_is_ranked_by_the_manifest_order():
    original = ORIGINAL.assign(g=["high", "low", "mid", "high"])
    types = {**TYPES, "g": ColumnType.ORDINAL}
    synthetic = original.assign(g=["mid", "low", "mid", "mid"])
    release = Release(
        "r", Dataset("original", "original", original),
        (Dataset("synthetic", "synthetic[1]", synthetic),), None, types, orders={"g": ["low", "mid", "high"]},
    )
    # Order low < mid < high. Synthetic ranks (ties in row order): 2, 1, 3, 4; the original by
    # rank is low, mid, high, high; so rows 1..4 read mid, low, high, high against the true
    # high, low, mid, high: rows 2 and 4 are disclosed.
    result = evaluate("linkage_exact_disclosure", release, secrets=("g",), show_values=True)
    assert result.value == 0.5
    assert [r["row"] for r in result.details["most_narrowed"]] == [2, 4]
    assert result.details["most_narrowed"][0]["values_identified"] == [["low"]]
    assert result.details["ranking"]["g"] == {"kind": "ordinal", "ranked_by": "order declared in the manifest"}


def test_risk_against_the_number_of_sets_is_a_line_chart():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED, COPY), fraction=0.5)
    (line,) = [c for c in result.charts if c["kind"] == "line"]
    assert line["series"][0]["x"] == [1, 2, 3] and line["series"][0]["y"] == [1.0, 0.5, 0.5]


def test_sets_run_through_the_executor_with_the_same_result():
    from policycheck.executor import LocalProcessExecutor

    release = make_release(COPY, REVERSED)
    serial = evaluate("linkage_range_narrowing", release, fraction=0.5)
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", ("a",), ("s",)), seed=3)
    with LocalProcessExecutor(2) as executor:
        ctx.executor = executor
        spec = registry.get_metric("linkage_range_narrowing")
        params = spec.params(fraction=0.5)
        needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(params, release)}
        pooled = spec.evaluate(ctx, params, needs)
    assert pooled.value == serial.value and pooled.details == serial.details


def test_an_order_for_an_unknown_column_is_refused():
    with pytest.raises(EvaluationError, match="column 'nope', which the release does not have"):
        evaluate("linkage_exact_disclosure", make_release(COPY), orders={"nope": ["a"]})
