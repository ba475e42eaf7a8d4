"""Linkage metrics (paper 000) through the registry, on a hand-computed release."""

import json

import numpy as np
import pandas as pd
import pytest

from policycheck.core.stats import clopper_pearson, newcombe_difference
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
    """Evaluate a linkage rule; tests of the attack's mechanics pass baseline="none" (the raw rate).

    The paper's attack reverse-maps, so that is the mapping here unless a test names others
    (the choice between mappings has its own tests at the end).
    """
    params.setdefault("mappings", ["reverse"])
    ctx = EvaluationContext(release, AttackerView("maximum-knowledge", qis, secrets), seed=3)
    spec = registry.get_metric(name)
    parsed = spec.params(**params)
    needs = {n: registry.compute_intermediate(ctx, n) for n in spec.needs(parsed, release)}
    return spec.evaluate(ctx, parsed, needs)


def test_range_narrowing_over_two_sets():
    # Set 1 reveals 10, 20, 30, 40; set 2 points to 40, 30, 20, 10. Ranges: [10, 40],
    # [20, 30], [20, 30], [10, 40]; widths 1, 1/3, 1/3, 1 of the range 30: two records narrowed.
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, baseline="none")
    assert result.value == 0.5
    assert [r["value"] for r in result.details["by_number_of_sets"]] == [1.0, 0.5]
    assert [r["value"] for r in result.details["per_set"]] == [1.0, 0.0]
    assert result.interval[0] <= 0.5 <= result.interval[1] and result.confidence == 0.95


def test_range_narrowing_lists_rows_but_not_values_by_default():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, baseline="none")
    rows = result.details["most_narrowed"]
    assert [r["row"] for r in rows] == [2, 3]
    assert all("true_value" not in r and "ranks_identified" not in r for r in rows)
    json.dumps(result.details)
    json.dumps(result.charts)


def test_range_narrowing_shows_values_when_the_policy_allows():
    result = evaluate(
        "linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5, show_values=True, baseline="none"
    )
    row2 = result.details["most_narrowed"][0]
    assert row2["true_value"] == 20 and row2["identified_range"] == [20, 30]
    assert row2["ranks_identified"] == [[2], [3]] and row2["values_identified"] == [[20], [30]]


def test_exact_disclosure_counts_records_revealed_by_k_sets():
    release = make_release(COPY, REVERSED)
    assert evaluate("linkage_exact_disclosure", release, k=1, baseline="none").value == 1.0
    assert evaluate("linkage_exact_disclosure", release, k=2, baseline="none").value == 0.0
    assert [r["value"] for r in evaluate("linkage_exact_disclosure", release).details["per_set"]] == [1.0, 0.0]


def test_exact_disclosure_refuses_k_above_the_number_of_sets():
    with pytest.raises(EvaluationError, match="k = 3 exceeds the number of released synthetic sets"):
        evaluate("linkage_exact_disclosure", make_release(COPY, REVERSED), k=3)


def test_consistently_misled_with_one_set_is_reported_as_single_set():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED), baseline="none")
    # Identified 40, 30, 20, 10 against 10, 20, 30, 40: every record is on a wrong side.
    assert result.value == 1.0
    assert result.details["single_set"] is True
    assert any("Only one synthetic set" in note for note in result.notes)


def test_consistently_misled_drops_when_a_second_set_brackets_the_truth():
    result = evaluate("linkage_consistently_misled", make_release(REVERSED, COPY), baseline="none")
    assert result.value == 0.0
    assert [r["value"] for r in result.details["by_number_of_sets"]] == [1.0, 0.0]


def test_nominal_secret_without_an_order_is_refused():
    with pytest.raises(EvaluationError, match="secret column 'c' is categorical without an order"):
        evaluate("linkage_range_narrowing", make_release(COPY), secrets=("c",))


def test_nominal_secret_with_a_policy_order_is_narrowed():
    result = evaluate(
        "linkage_exact_disclosure", make_release(COPY), secrets=("c",), orders={"c": ["x", "y", "z"]}, baseline="none"
    )
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
    assert [r["row"] for r in result.details["most_narrowed"]] == [2, 4]
    assert result.details["most_narrowed"][0]["values_identified"] == [["low"]]
    assert result.details["ranking"]["g"] == {"kind": "ordinal", "ranked_by": "order declared in the manifest"}


def test_risk_against_the_number_of_sets_is_a_line_chart():
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED, COPY), fraction=0.5, baseline="none")
    (line,) = [c for c in result.charts if c["kind"] == "line"]
    assert line["series"][0]["x"] == [1, 2, 3] and line["series"][0]["y"] == [1.0, 0.5, 0.5]


def test_sets_run_through_the_executor_with_the_same_result():
    from policycheck.execution.local import LocalProcessExecutor

    release = make_release(COPY, REVERSED)
    serial = evaluate("linkage_range_narrowing", release, fraction=0.5, mappings=["reverse", "released"])
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


# ---------------------------------------------------------------- baselines


def test_range_narrowing_subtracts_chance_by_default():
    # Raw 0.5 (see above). Chance with two linked records, fraction 0.5 of the range 30: the
    # records with 10 and 40 are narrowed with 3/16, those with 20 and 30 with 5/16; mean 1/4.
    result = evaluate("linkage_range_narrowing", make_release(COPY, REVERSED), fraction=0.5)
    assert result.raw == 0.5 and result.baseline == pytest.approx(0.25)
    assert result.value == pytest.approx(0.25)
    assert result.baseline_label.startswith("chance")
    assert result.details["baseline"]["used"] == "chance"
    # The interval is Clopper-Pearson of 2/4 shifted by the chance rate (one baseline: no split).
    lo, hi = clopper_pearson(2, 4, 0.95)
    assert result.interval == pytest.approx((lo - 0.25, hi - 0.25))


def test_exact_disclosure_chance_is_the_sum_of_squared_shares():
    # A secret that is half zeros; each record links to exactly one synthetic record.
    original = pd.DataFrame({"a": [1.0, 2, 3, 4, 5, 6, 7, 8], "s": [0.0, 0, 0, 0, 1, 2, 3, 4]})
    types = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC}
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "copy", original.copy()),), None, types
    )
    result = evaluate("linkage_exact_disclosure", release)
    # sum p^2 = (1/2)^2 + 4 (1/8)^2 = 0.3125; the copy discloses everyone.
    assert result.details["sum_of_squared_shares"] == pytest.approx(0.3125)
    assert result.baseline == pytest.approx(0.3125)
    assert result.value == pytest.approx(1 - 0.3125)
    assert evaluate("linkage_exact_disclosure", release, baseline="none").value == 1.0


# Holdout a = 1..4 with s = 10, 30, 20, 40. The copy of the original, reverse-mapped onto the
# holdout's values, pairs a = 1..4 with s = 10, 20, 30, 40: the holdout records with a = 1 and
# a = 4 get their own value, the two others each other's. Holdout rate 2/4.
HOLDOUT = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [10.0, 30.0, 20.0, 40.0], "c": ["x", "y", "y", "z"]})


def with_holdout(*sets):
    release = make_release(*sets)
    return Release(release.id, release.original, release.synthetic, Dataset("holdout", "holdout", HOLDOUT), TYPES)


def test_exact_disclosure_against_the_same_attack_on_holdout_records():
    release = with_holdout(COPY)
    result = evaluate("linkage_exact_disclosure", release)
    # Raw 4/4; chance sum p^2 = 1/4; holdout 2/4: the larger baseline is the holdout's.
    assert (result.raw, result.baseline, result.value) == (1.0, 0.5, 0.5)
    assert result.details["baseline"]["chance"] == pytest.approx(0.25)
    assert result.details["baseline"]["holdout"] == 0.5
    assert "holdout records" in result.baseline_label
    # Both baselines: each difference at the Bonferroni level for 2, the smaller one's interval.
    level = 1 - 0.05 / 2
    lo_c, hi_c = clopper_pearson(4, 4, level)
    lo_h, hi_h = newcombe_difference(4, 4, 2, 4, level)
    assert result.interval == pytest.approx((min(lo_c - 0.25, lo_h), min(hi_c - 0.25, hi_h)))
    assert evaluate("linkage_exact_disclosure", release, baseline="chance").value == pytest.approx(0.75)
    assert evaluate("linkage_exact_disclosure", release, baseline="holdout").interval == pytest.approx(
        newcombe_difference(4, 4, 2, 4, 0.95)
    )


def test_holdout_baseline_without_a_holdout_is_refused():
    with pytest.raises(EvaluationError, match="no holdout"):
        evaluate("linkage_exact_disclosure", make_release(COPY), baseline="holdout")


def test_misled_takes_the_smaller_baseline_and_keeps_its_direction():
    release = with_holdout(REVERSED)
    # REVERSED misleads all four original records. On the holdout it identifies 40, 30, 20, 10
    # for a = 1..4 against 10, 30, 20, 40: a = 2 and a = 3 are hit, so 2/4 are misled. Chance
    # with one draw: 3/4 for every record. The attacker's better baseline is the smaller, 1/2.
    result = evaluate("linkage_consistently_misled", release)
    assert result.details["baseline"]["chance"] == pytest.approx(0.75)
    assert (result.raw, result.baseline, result.value) == (1.0, 0.5, 0.5)
    # Higher is safer: the interval is that of the larger difference.
    level = 1 - 0.05 / 2
    lo_c, hi_c = clopper_pearson(4, 4, level)
    lo_h, hi_h = newcombe_difference(4, 4, 2, 4, level)
    assert result.interval == pytest.approx((max(lo_c - 0.75, lo_h), max(hi_c - 0.75, hi_h)))


# ---------------------------------------------------------------- missing values


def test_records_with_a_missing_secret_are_left_out_of_the_denominators():
    original = ORIGINAL.assign(s=[10.0, np.nan, 30.0, 40.0])
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "copy", original.copy()),), None, TYPES
    )
    # The copy's secret ranks map row 2 to the missing value: it identifies nothing there, and
    # rows 1, 3 and 4 are disclosed: 3 of the 3 records with a secret.
    result = evaluate("linkage_exact_disclosure", release, baseline="none")
    assert result.value == 1.0 and result.sample_size == 3
    assert result.details["records_without_secret"] == 1
    assert any("1 original records have no value" in note for note in result.notes)
    for name in ("linkage_range_narrowing", "linkage_consistently_misled"):
        assert evaluate(name, release).sample_size == 3


def test_a_secret_missing_everywhere_is_a_clear_error():
    original = ORIGINAL.assign(s=np.nan)
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "copy", original.copy()),), None, TYPES
    )
    with pytest.raises(EvaluationError, match="missing in every original record"):
        evaluate("linkage_exact_disclosure", release)


def test_missing_linkage_attributes_and_repeated_attributes_link():
    original = ORIGINAL.assign(a=[1.0, np.nan, 3.0, 4.0])
    release = Release(
        "r", Dataset("original", "original", original), (Dataset("synthetic", "copy", original.copy()),), None, TYPES
    )
    result = evaluate("linkage_exact_disclosure", release, attributes=["a", "a"], baseline="none")
    assert result.details["attributes"] == ["a"]
    assert result.value == 1.0


# A bootstrap of a 4-record original: record 1 twice, records 2 and 3, record 4 left out.
SHUFFLED = pd.DataFrame({"a": [1.0, 2.0, 3.0, 4.0], "s": [30.0, 10.0, 40.0, 20.0]})
BOOTSTRAP = SHUFFLED.iloc[[0, 0, 1, 2]].reset_index(drop=True)


def _bootstrap_release() -> Release:
    types = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC}
    return Release(
        "r", Dataset("original", "original", SHUFFLED), (Dataset("synthetic", "boot", BOOTSTRAP),), None, types
    )


def test_reverse_mapping_shifts_a_bootstrap_off_its_records():
    # Reverse mapping: a = 1, 1, 2, 3 ranks 1-4 -> 1, 2, 3, 4; s = 30, 30, 10, 40 ranks 2, 3, 1, 4
    # -> 20, 30, 10, 40. Each original record links to the one record with its a and reads a
    # wrong secret (30 -> 20, 10 -> 30, 40 -> 10, 20 -> 40): nothing disclosed.
    result = evaluate("linkage_exact_disclosure", _bootstrap_release(), baseline="none")
    assert result.value == 0.0 and result.details["mapping"] == "reverse"
    assert result.interval == pytest.approx(clopper_pearson(0, 4, 0.95))


def test_released_mapping_reads_a_bootstrap_as_released():
    # As released: a = 1 links both copies of record 1 (secret 30, right), a = 2 and a = 3 their
    # copies (10 and 40, right); a = 4 is absent and links the nearest rank, a = 3 (40, wrong): 3 of 4.
    result = evaluate("linkage_exact_disclosure", _bootstrap_release(), baseline="none", mappings=["released"])
    assert result.value == 0.75 and result.details["mapping"] == "released"


def test_default_mappings_take_the_worse_with_a_bonferroni_interval():
    result = evaluate(
        "linkage_exact_disclosure", _bootstrap_release(), baseline="none", mappings=["reverse", "released"]
    )
    assert result.value == 0.75 and result.details["mapping"] == "released"
    assert {m: r["value"] for m, r in result.details["mappings"].items()} == {"reverse": 0.0, "released": 0.75}
    # Each interval at 1 - 0.05 / 2; the larger value lies between the larger ends.
    reverse, released = clopper_pearson(0, 4, 0.975), clopper_pearson(3, 4, 0.975)
    assert result.interval == pytest.approx((max(reverse[0], released[0]), max(reverse[1], released[1])))
    assert result.confidence == 0.95


def test_both_mappings_are_the_default():
    assert registry.get_metric("linkage_range_narrowing").params().mappings == ["reverse", "released"]


def test_chance_of_the_released_mapping_draws_from_the_released_secrets():
    # Released secrets 30, 30, 10, 40: shares 1/4, 1/2, 1/4 (20 none). Exact disclosure by chance
    # with c linked records is pi(v)^c: record 1 (30, two copies linked) 1/4, record 2 (10) 1/4,
    # record 3 (40) 1/4, record 4 (20, linked to record 3's copy) 0; mean 3/16.
    result = evaluate("linkage_exact_disclosure", _bootstrap_release(), baseline="chance", mappings=["released"])
    assert result.baseline == pytest.approx(3 / 16)
    assert result.value == pytest.approx(0.75 - 3 / 16)


def _two_groups_release() -> Release:
    # Four records with a = 1 and secret 10, four with a = 2 and secrets 20, 30, 40, 50; a copy.
    frame = pd.DataFrame({"a": [1.0] * 4 + [2.0] * 4, "s": [10.0] * 4 + [20.0, 30.0, 40.0, 50.0]})
    types = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC}
    return Release(
        "r", Dataset("original", "original", frame), (Dataset("synthetic", "copy", frame.copy()),), None, types
    )


def test_records_linked_to_the_same_synthetic_records_count_as_one():
    # The four a = 1 records all link to the four synthetic a = 1 records (range [10, 10]:
    # narrowed), the four a = 2 records to the other four (range [20, 50], 0.75 of the range 40:
    # not narrowed). Raw 4/8, but two clusters: Kish's variance ((4 - 2)^2 + (0 - 2)^2) / 8^2 =
    # 1/8 gives p (1 - p) / variance = 2 effective records, the interval of 1 in 2.
    result = evaluate("linkage_range_narrowing", _two_groups_release(), fraction=0.1, baseline="none")
    assert result.value == 0.5
    assert result.details["baseline"]["effective_records"] == pytest.approx(2.0)
    assert result.interval == pytest.approx(clopper_pearson(1, 2))


def test_records_linked_to_one_record_through_different_attributes_share_a_cluster():
    # Original a = 1, 2, 3; the synthetic set holds a = 2 only, so every record links to it and
    # reads 20: one cluster of three records, one of which (a = 2) is narrowed.
    original = pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": [10.0, 20.0, 30.0]})
    synthetic = pd.DataFrame({"a": [2.0, 2.0, 2.0], "s": [20.0, 20.0, 20.0]})
    types = {"a": ColumnType.NUMERIC, "s": ColumnType.NUMERIC}
    rel = Release("r", Dataset("original", "original", original), (Dataset("synthetic", "s", synthetic),), None, types)
    result = evaluate("linkage_range_narrowing", rel, fraction=0.1, baseline="none", mappings=["released"])
    assert result.value == pytest.approx(1 / 3)
    # One cluster: Kish's variance (1 - 3 p)^2 / 3^2 = 0, so the cluster counts as one trial.
    assert result.details["baseline"]["effective_records"] == 1.0
