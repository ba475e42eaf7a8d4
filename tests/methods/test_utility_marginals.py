import numpy as np
import pandas as pd
import pytest

from policycheck.methods.utility import choose_triples, three_way_marginal_errors


def _original():
    # Cell (a, x, 1) holds 12 records, cell (b, y, 0) holds 8.
    return pd.DataFrame({"c1": ["a"] * 12 + ["b"] * 8, "c2": ["x"] * 12 + ["y"] * 8, "c3": [1] * 12 + [0] * 8})


def test_a_copy_of_the_original_has_no_error():
    errors = three_way_marginal_errors(_original(), _original(), [], [("c1", "c2", "c3")])
    assert errors.mre == 0.0 and errors.mean_tvd == 0.0


def test_relative_error_counts_only_cells_above_ten_and_rescales_by_n_over_m():
    # S has 40 records (m = 2n): 16 in (a,x,1) and 24 in (b,y,0). Rescaled by n/m = 1/2:
    # 8 against 12 in the only cell above 10 -> relative error 4/12.
    synthetic = pd.DataFrame({"c1": ["a"] * 16 + ["b"] * 24, "c2": ["x"] * 16 + ["y"] * 24, "c3": [1] * 16 + [0] * 24})
    errors = three_way_marginal_errors(_original(), synthetic, [], [("c1", "c2", "c3")])
    assert errors.mre == pytest.approx(4 / 12)
    # TVD: p_D = (0.6, 0.4), p_S = (0.4, 0.6): 1/2 (0.2 + 0.2) = 0.2.
    assert errors.mean_tvd == pytest.approx(0.2)


def test_a_synthetic_value_unseen_in_the_original_counts_as_misplaced_mass():
    synthetic = _original()
    synthetic.loc[:9, "c1"] = "zzz"
    errors = three_way_marginal_errors(_original(), synthetic, [], [("c1", "c2", "c3")])
    # Half the records moved to a new cell: TVD 10/20.
    assert errors.mean_tvd == pytest.approx(0.5)


def test_every_triple_is_measured_unless_a_sample_is_asked_for():
    columns = list("abcde")
    assert len(choose_triples(columns, None, np.random.default_rng(0))) == 10
    sample = choose_triples(columns, 4, np.random.default_rng(0))
    assert len(sample) == 4 and len(set(sample)) == 4
    assert sample == choose_triples(columns, 4, np.random.default_rng(0))


def test_a_missing_value_is_a_category_of_its_own():
    original = pd.DataFrame({"a": ["x", None], "b": [1.0, np.nan], "c": ["p", "p"]})
    # Missing values kept where they were: no error.
    same = three_way_marginal_errors(original, original.copy(), ["b"], [("a", "b", "c")], min_count=0)
    assert same.mean_tvd == 0.0
    # The synthesizer replaced the missing category by an unseen one: half the mass moved.
    # (Missing and unseen used to share one cell, which hid this.)
    replaced = original.assign(a=["x", "y"], b=[1.0, np.nan])
    errors = three_way_marginal_errors(original, replaced, ["b"], [("a", "b", "c")], min_count=0)
    assert errors.mean_tvd == pytest.approx(0.5)


def test_direct_and_sorted_cell_counts_are_the_same_arrays(monkeypatch):
    from policycheck.methods import utility

    rng = np.random.default_rng(0)
    ids_d, ids_s = rng.integers(0, 5000, 3000) * 7, rng.integers(0, 6000, 2000) * 7
    direct = utility.joint_counts(ids_d, ids_s, 42_000)
    monkeypatch.setattr(utility, "DIRECT_CELLS", 10)
    by_sorting = utility.joint_counts(ids_d, ids_s, 42_000)
    for a, b in zip(direct, by_sorting, strict=False):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    # Every cell either set occupies, in id order: the union's size.
    assert direct[0].size == np.union1d(ids_d, ids_s).size
