"""Multiple reverse mapping (paper 000, sec. 3.1): Table 2 and the tie rule."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.linkage.presampling import presample
from policycheck.methods.linkage.reverse_mapping import (
    AttributeOrder,
    attribute_order,
    ordinal_ranks,
    reverse_map,
    reverse_map_frame,
    reverse_map_from_ranks,
)
from policycheck.release.model import ColumnType

# Table 2 of paper 000, IDs 1..20: original X1 and its rank, then for each
# synthetic set: X1, rank of X1, reverse-mapped X1, small noise.
ORIGINAL_X1 = [38, 66, 56, 53, 31, 63, 39, 63, 51, 56, 70, 61, 41, 49, 51, 64, 45, 57, 37, 50]
ORIGINAL_RANK = [3, 19, 12, 11, 1, 16, 4, 17, 9, 13, 20, 15, 5, 7, 10, 18, 6, 14, 2, 8]
SETS = {
    1: (
        [46, 36, 43, 59, 41, 61, 44, 56, 76, 49, 65, 59, 40, 43, 53, 51, 66, 44, 72, 39],
        [9, 1, 5, 14, 4, 16, 7, 13, 20, 10, 17, 15, 3, 6, 12, 11, 18, 8, 19, 2],
        [51, 31, 41, 57, 39, 63, 49, 56, 70, 51, 63, 61, 38, 45, 56, 53, 64, 50, 66, 37],
        [-5, 5, 2, 2, 2, -2, -5, 0, 6, -2, 2, -2, 2, -2, -3, -2, 2, -6, 6, 2],
    ),
    2: (
        [33, 54, 50, 37, 43, 45, 33, 41, 40, 37, 37, 43, 32, 51, 58, 39, 45, 39, 41, 53],
        [2, 19, 16, 6, 13, 15, 3, 11, 9, 5, 4, 12, 1, 17, 20, 8, 14, 7, 10, 18],
        [37, 66, 63, 45, 56, 61, 38, 53, 51, 41, 39, 56, 31, 63, 70, 50, 57, 49, 51, 64],
        [-4, -12, -13, -8, -13, -16, -5, -12, -11, -4, -2, -13, 1, -12, -12, -11, -12, -10, -10, -11],
    ),
    3: (
        [38, 46, 42, 41, 49, 49, 56, 42, 45, 53, 42, 35, 44, 47, 28, 50, 33, 42, 40, 46],
        [4, 14, 8, 6, 16, 17, 20, 9, 12, 19, 7, 3, 11, 15, 1, 18, 2, 10, 5, 13],
        [39, 57, 50, 45, 63, 63, 70, 51, 56, 66, 49, 38, 53, 61, 31, 64, 37, 51, 41, 56],
        [-1, -11, -8, -4, -14, -14, -14, -9, -11, -13, -7, -3, -9, -14, -3, -14, -4, -9, -1, -10],
    ),
}


@pytest.mark.parametrize("m", [1, 2, 3])
def test_table2_reverse_mapped_x1_and_small_noise_from_the_printed_ranks(m):
    synthetic, ranks, mapped, noise = SETS[m]
    out = reverse_map_from_ranks(np.array(ORIGINAL_X1), np.array(synthetic), np.array(ranks))
    assert out.values.tolist() == mapped
    assert out.noise.tolist() == noise
    # Equation (1): Y = P X + E, with Z a permutation of X.
    assert sorted(out.values.tolist()) == sorted(ORIGINAL_X1)
    assert (out.values + out.noise).tolist() == synthetic


def test_table2_original_ranks_follow_the_row_order_tie_rule():
    assert ordinal_ranks(np.array(ORIGINAL_X1, dtype=float)).tolist() == ORIGINAL_RANK


def test_table2_set1_is_reproduced_from_printed_values_alone():
    synthetic, ranks, mapped, noise = SETS[1]
    out = reverse_map(np.array(ORIGINAL_X1), np.array(synthetic))
    assert out.ranks.tolist() == ranks
    assert out.values.tolist() == mapped
    assert out.noise.tolist() == noise


@pytest.mark.parametrize("m", [2, 3])
def test_table2_printed_ties_only_reorder_ranks_within_the_tied_block(m):
    # Sets 2 and 3 were printed rounded: equal printed values (e.g. 37 at IDs 4, 10, 11
    # of set 2, ranked 6, 5, 4) were distinct before rounding. From printed values our
    # rule must agree on every untied row and give each tied block the same ranks.
    synthetic, ranks, _, _ = SETS[m]
    ours = reverse_map(np.array(ORIGINAL_X1), np.array(synthetic)).ranks
    values = np.array(synthetic)
    for v in np.unique(values):
        block = values == v
        assert sorted(ours[block].tolist()) == sorted(np.array(ranks)[block].tolist())
        if block.sum() == 1:
            assert ours[block].tolist() == np.array(ranks)[block].tolist()


def test_ties_get_ranks_in_row_order_and_missing_values_rank_last():
    assert ordinal_ranks(np.array([5.0, np.nan, 2.0, 5.0, 2.0])).tolist() == [3, 5, 1, 4, 2]


def test_nominal_default_order_is_frequency_then_label():
    col = pd.Series(["b", "a", "c", "a", "c", "d"])
    order = attribute_order("x", ColumnType.CATEGORICAL, col)
    assert order.labels == ("a", "c", "b", "d")
    # A category unseen in the original goes after the known ones.
    assert order.codes(pd.Series(["d", "zz", "a", None])).tolist()[:3] == [3.0, 4.0, 0.0]


def test_ordinal_order_comes_from_the_manifest_and_policy_order_wins():
    col = pd.Series(["lo", "hi"])
    assert attribute_order("x", ColumnType.ORDINAL, col, ["lo", "mid", "hi"]).labels == ("lo", "mid", "hi")
    assert attribute_order("x", ColumnType.ORDINAL, col, ["lo", "hi"], ["hi", "lo"]).labels == ("hi", "lo")


def test_reverse_mapped_frame_keeps_every_marginal_of_the_original():
    original = pd.DataFrame({"n": [3.0, 1.0, 2.0, 2.0], "c": ["x", "y", "y", "z"]})
    synthetic = pd.DataFrame({"n": [10.0, -1.0, 5.0, 7.0], "c": ["z", "z", "x", "y"]})
    orders = {
        c: attribute_order(c, t, original[c]) for c, t in [("n", ColumnType.NUMERIC), ("c", ColumnType.CATEGORICAL)]
    }
    z = reverse_map_frame(original, synthetic, orders)
    # n: synthetic ranks 4, 1, 2, 3 -> original sorted 1, 2, 2, 3.
    assert z["n"].tolist() == [3.0, 1.0, 2.0, 2.0]
    # c ordered y (2 records), then x and z (1 each, by label): synthetic codes 2, 2, 1, 0
    # -> ranks 3, 4, 2, 1; the original by rank is y, y, x, z.
    assert z["c"].tolist() == ["x", "z", "y", "y"]
    assert sorted(z["c"]) == sorted(original["c"])


def test_larger_synthetic_set_is_subsampled_in_row_order():
    rows, record = presample(10, 4, np.random.default_rng(0))
    assert rows.size == 4 and np.unique(rows).size == 4 and np.all(np.diff(rows) > 0)
    assert record.to_dict() == {"action": "sub-sampled", "from_rows": 10, "to_rows": 4}


def test_smaller_synthetic_set_is_supersampled_from_its_own_records():
    rows, record = presample(3, 7, np.random.default_rng(0))
    assert rows[:3].tolist() == [0, 1, 2] and rows.size == 7 and rows.max() < 3
    assert record.action == "super-sampled"


def test_presampling_is_reproducible_from_the_seed():
    a, _ = presample(50, 20, np.random.default_rng(7))
    b, _ = presample(50, 20, np.random.default_rng(7))
    assert a.tolist() == b.tolist()
    same, record = presample(5, 5, np.random.default_rng(7))
    assert same.tolist() == [0, 1, 2, 3, 4] and record.action == "unchanged"


@pytest.mark.parametrize("dtype", [object, "string", "category"])
def test_category_codes_are_label_positions_with_missing_values_as_nan(dtype):
    # Labels b, a; z and y are outside them and come after, in label order (y before z).
    order = AttributeOrder("c", "nominal", ("b", "a"), "given")
    codes = order.codes(pd.Series(["a", None, "b", "z", "y", "a"], dtype=dtype))
    np.testing.assert_array_equal(codes, [1.0, np.nan, 0.0, 3.0, 2.0, 1.0])


def test_numbers_in_a_categorical_column_are_coded_by_their_text():
    order = AttributeOrder("c", "nominal", ("2", "1.5"), "given")
    np.testing.assert_array_equal(order.codes(pd.Series([1.5, 2, None], dtype=object)), [1.0, 0.0, np.nan])
