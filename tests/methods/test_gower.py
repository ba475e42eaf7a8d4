"""Gower's distance under the pinned convention, against hand-computed values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.gower import CATEGORY, CONVENTION, MISSING, SCALED, fit_and_encode, fit_gower, gower_distance
from policycheck.metrics.base import EvaluationError
from policycheck.release.model import ColumnType

TYPES = {
    "age": ColumnType.NUMERIC,
    "sex": ColumnType.CATEGORICAL,
    "grade": ColumnType.ORDINAL,
    "flat": ColumnType.NUMERIC,
}
ORDERS = {"grade": ["low", "mid", "high"]}


def frames():
    a = pd.DataFrame({"age": [20.0, np.nan], "sex": ["F", None], "grade": ["low", "high"], "flat": [5.0, 5.0]})
    b = pd.DataFrame({"age": [30.0, np.nan], "sex": ["M", None], "grade": ["mid", None], "flat": [5.0, np.nan]})
    c = pd.DataFrame({"age": [60.0], "sex": ["F"], "grade": ["high"], "flat": [5.0]})
    return a, b, c


def encode_pair(x: pd.DataFrame, y: pd.DataFrame, fitted_on):
    enc = fit_gower(fitted_on, TYPES, ORDERS, list(TYPES))
    return enc, enc.encode(x), enc.encode(y)


def test_numeric_range_is_taken_over_the_union_of_every_set():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES))
    assert enc.numeric_range["age"] == (20.0, 60.0)


def test_distance_of_mixed_records_matches_hand_computation():
    a, b, c = frames()
    enc, xa, xb = encode_pair(a, b, [a, b, c])
    # age |20-30|/40 = 0.25; sex F vs M = 1; grade low(0) vs mid(1/2) = 0.5; flat constant = 0.
    assert gower_distance(xa[0], xb[0], enc.kinds)[0] == pytest.approx((0.25 + 1 + 0.5 + 0) / 4)


def test_two_missing_values_match_and_missing_against_present_is_a_full_mismatch():
    a, b, c = frames()
    enc, xa, xb = encode_pair(a, b, [a, b, c])
    # age NaN vs NaN = 0; sex None vs None = 0; grade high vs missing = 1; flat 5 vs NaN = 1.
    assert gower_distance(xa[1], xb[1], enc.kinds)[0] == pytest.approx(2 / 4)


def test_constant_column_contributes_nothing_between_present_values():
    a, b, c = frames()
    enc, xa, xc = encode_pair(a, c, [a, b, c])
    # age |20-60|/40 = 1; sex equal = 0; grade low vs high = 1; flat 5 vs 5 = 0.
    assert gower_distance(xa[0], xc[0], enc.kinds)[0] == pytest.approx(2 / 4)


def test_missing_categorical_is_a_value_of_its_own():
    a, b, c = frames()
    enc, xa, xc = encode_pair(a, c, [a, b, c])
    # row a[1]: age NaN vs 60 = 1; sex None vs F = 1; grade high = high 0; flat 5 vs 5 = 0.
    assert gower_distance(xa[1], xc[0], enc.kinds)[0] == pytest.approx(2 / 4)


def test_ordinal_ranks_are_scaled_to_the_unit_interval():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES))
    col = enc.scan_order.index("grade")
    assert enc.encode(a)[:, col].tolist() == [0.0, 1.0]
    assert enc.encode(b)[:, col].tolist() == [0.5, MISSING]


def test_categorical_features_are_summed_first():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES))
    assert enc.scan_order[0] == "sex"
    assert enc.kinds.tolist() == [CATEGORY, SCALED, SCALED, SCALED]


def test_restricting_features_restricts_the_mean():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, ["age", "sex"])
    assert enc.p == 2
    assert gower_distance(enc.encode(a)[0], enc.encode(b)[0], enc.kinds)[0] == pytest.approx((0.25 + 1) / 2)


def test_value_outside_the_declared_order_is_an_evaluation_error():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES))
    bad = a.assign(grade=["low", "top"])
    with pytest.raises(EvaluationError, match="'grade'.*'top'"):
        enc.encode(bad)


def test_ordinal_without_declared_order_is_an_evaluation_error():
    a, b, c = frames()
    with pytest.raises(EvaluationError, match="'grade'"):
        fit_gower([a, b, c], TYPES, {}, list(TYPES))


def test_description_carries_the_convention_and_its_numbers():
    a, b, c = frames()
    described = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES)).describe()
    assert described["convention"] == CONVENTION
    assert described["numeric_ranges"] == {"age": [20.0, 60.0], "flat": [5.0, 5.0]}
    assert described["ordinal_orders"] == {"grade": ["low", "mid", "high"]}


def test_fitting_and_encoding_on_two_threads_give_what_one_thread_gives():
    rng = np.random.default_rng(5)
    sets = [
        pd.DataFrame(
            {
                "age": np.where(rng.random(n) < 0.1, np.nan, rng.normal(40, 12, n)),
                "sex": pd.Series(rng.choice(["F", "M", None], n), dtype=object),
                "grade": pd.Series(rng.choice(["low", "mid", "high", None], n), dtype=object),
                "flat": np.full(n, 5.0),
            }
        )
        for n in (500, 300, 400)
    ]
    one, two = (fit_gower(sets, TYPES, ORDERS, list(TYPES), threads=t) for t in (1, 2))
    assert (two.scan_order, two.numeric_range, two.levels, two.types) == (
        one.scan_order,
        one.numeric_range,
        one.levels,
        one.types,
    )
    np.testing.assert_array_equal(two.kinds, one.kinds)
    for frame in sets:
        np.testing.assert_array_equal(one.encode(frame, threads=2), one.encode(frame))


def test_a_value_outside_the_declared_order_is_refused_on_two_threads_too():
    a, b, c = frames()
    enc = fit_gower([a, b, c], TYPES, ORDERS, list(TYPES), threads=2)
    with pytest.raises(EvaluationError, match="'top', which is not in its declared order"):
        enc.encode(a.assign(grade=["low", "top"]), threads=2)


def mixed_sets(seed: int, sizes=(500, 300, 400)):
    rng = np.random.default_rng(seed)
    return [
        pd.DataFrame(
            {
                "age": np.where(rng.random(n) < 0.1, np.nan, rng.normal(40, 12, n)),
                # few levels and few rows: many shares tie, so their order is tested too
                "sex": pd.Series(rng.choice(["F", "M", None], n), dtype=object),
                "grade": pd.Series(rng.choice(["low", "mid", "high", None], n), dtype=object),
                "flat": np.full(n, 5.0),
            }
        )
        for n in sizes
    ]


def test_fitting_with_the_encoding_gives_what_fitting_then_encoding_gives():
    # 20,000 rows: three blocks of rows written (FILL_ROWS), the last a part one.
    for seed, sizes in ((1, (500, 300, 400)), (2, (6, 4, 5)), (3, (1, 2, 1)), (4, (20_000, 10, 8_192))):
        sets = mixed_sets(seed, sizes)
        outsider = mixed_sets(seed + 10, (50,))[0]  # not fitted on: encoded value by value
        expected = fit_gower(sets, TYPES, ORDERS, list(TYPES))
        for threads in (1, 2):
            enc, matrices = fit_and_encode(
                sets, TYPES, ORDERS, list(TYPES), [sets[0], sets[2], outsider], threads=threads
            )
            assert (enc.scan_order, enc.numeric_range, enc.levels, enc.types) == (
                expected.scan_order,
                expected.numeric_range,
                expected.levels,
                expected.types,
            )
            for frame, matrix in zip([sets[0], sets[2], outsider], matrices, strict=True):
                np.testing.assert_array_equal(matrix, expected.encode(frame))


def test_levels_are_numbered_in_order_of_first_appearance_and_a_fitted_set_keeps_its_codes():
    sets = [
        pd.DataFrame({"sex": pd.Series(v, dtype=object), "age": np.arange(len(v), dtype=float)})
        for v in (["F", "F", "M"], [None, "M"], ["F"])
    ]
    types = {"sex": ColumnType.CATEGORICAL, "age": ColumnType.NUMERIC}
    enc, (first,) = fit_and_encode(sets, types, {}, ["sex", "age"], [sets[1]])
    assert enc.levels["sex"] == ["F", "M"]
    np.testing.assert_array_equal(first, [[-1.0, 0.0], [1.0, 0.5]])  # missing; M, age 1 of range 0-2


def test_joined_numberings_are_pandas_factorize_of_the_labels_one_after_another():
    from policycheck.methods.gower import joined_codes
    from policycheck.release.convert import label_categories

    parts = [["b", None, "a", "b"], [], ["c", "a", None], ["d", "c", "b"]]
    codes, levels = joined_codes([label_categories(pd.Series(p, dtype=object)) for p in parts])
    expected_codes, expected_levels = pd.factorize(
        pd.Series([v for p in parts for v in p], dtype=object), use_na_sentinel=True
    )
    assert levels == list(expected_levels) == ["b", "a", "c", "d"]
    np.testing.assert_array_equal(codes, expected_codes)
    np.testing.assert_array_equal(codes, [0, -1, 1, 0, 2, 1, -1, 3, 2, 0])


def test_fitting_on_the_loaders_numbering_gives_what_fitting_on_the_labels_gives():
    from policycheck.release.convert import label_categories

    for seed, sizes in ((1, (500, 300, 400)), (3, (1, 2, 1))):
        sets = mixed_sets(seed, sizes)
        numbered = [{"sex": label_categories(s["sex"])} for s in sets]
        expected, expected_matrices = fit_and_encode(sets, TYPES, ORDERS, list(TYPES), sets)
        enc, matrices = fit_and_encode(sets, TYPES, ORDERS, list(TYPES), sets, numbered=numbered)
        assert (enc.scan_order, enc.levels) == (expected.scan_order, expected.levels)
        for matrix, expected_matrix in zip(matrices, expected_matrices, strict=True):
            np.testing.assert_array_equal(matrix, expected_matrix)
