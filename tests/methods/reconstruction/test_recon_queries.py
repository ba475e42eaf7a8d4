import numpy as np
import pandas as pd
import pytest

from policycheck.methods.reconstruction.encoding import UNSEEN, fit_encoding
from policycheck.methods.reconstruction.queries import answer_queries, build_queries, cell_ids


def test_cell_ids_are_mixed_radix_and_unseen_codes_fall_in_no_cell():
    codes = np.array([[1, 2], [0, 0], [2, UNSEEN]])
    assert cell_ids(codes, np.array([3, 4])).tolist() == [1 * 4 + 2, 0, -1]


def test_numeric_columns_get_quantile_bins_of_the_reference():
    frame = pd.DataFrame({"age": [10, 20, 30, 40], "job": ["a", "b", "a", "c"]})
    enc = fit_encoding(frame, ["age", "job"], ["age"], numeric_bins=2)
    # The median of 10..40 is 25: two bins, below and above it.
    assert enc.edges["age"].tolist() == [25.0]
    codes = enc.codes(pd.DataFrame({"age": [11, 39], "job": ["c", "zzz"]}))
    assert codes.tolist() == [[0, 2], [1, UNSEEN]]


def _three_records():
    # Two quasi-identifiers with 2 values each: records r0=(0,0), r1=(0,1), r2=(0,1).
    return np.array([[0, 0], [0, 1], [0, 1]]), np.array([2, 2])


def test_three_way_queries_are_the_non_empty_cells_of_each_quasi_identifier_pair():
    codes, radix = _three_records()
    # Order 2: one quasi-identifier + secret. QI0 has one occupied cell {r0,r1,r2};
    # QI1 has two, {r0} and {r1,r2}: 3 queries.
    qs = build_queries(codes, radix, [2], None, np.random.default_rng(0))
    assert qs.n_queries == 3
    assert qs.matrix.toarray().tolist() == [[1, 1, 1], [1, 0, 0], [0, 1, 1]]
    assert qs.original_counts.tolist() == [3, 1, 2]
    # Order 3: the single pair (QI0, QI1) has two occupied cells.
    qs3 = build_queries(codes, radix, [3], None, np.random.default_rng(0))
    assert qs3.matrix.toarray().tolist() == [[1, 0, 0], [0, 1, 1]]


def test_query_budget_is_a_seeded_sample_not_the_first_queries():
    rng = np.random.default_rng(1)
    codes = rng.integers(0, 4, size=(200, 5))
    radix = np.full(5, 4)
    every = build_queries(codes, radix, [3], None, np.random.default_rng(0))
    a = build_queries(codes, radix, [3], 50, np.random.default_rng(7))
    b = build_queries(codes, radix, [3], 50, np.random.default_rng(7))
    assert a.n_queries == 50 and a.enumerated == every.n_queries
    assert (a.matrix != b.matrix).nnz == 0
    # The 50 first enumerated queries all come from the first attribute pairs; a uniform sample does not.
    first = set(every.combo_of_query[:50].tolist())
    assert not set(a.combo_of_query.tolist()) <= first


def test_conditional_answers_scale_the_synthetic_share_by_the_original_cell_count():
    codes, radix = _three_records()
    qs = build_queries(codes, radix, [3], None, np.random.default_rng(0))
    # Synthetic: cell (0,1) holds 3 records, 2 with secret class 1; cell (0,0) is absent.
    synthetic = np.array([[0, 1], [0, 1], [0, 1], [1, 1]])
    secret = np.array([1, 1, 0, 0])
    answers, answered = answer_queries(qs, synthetic, secret, 2, radix, "conditional")
    assert answered.tolist() == [False, True]
    # Original count of cell (0,1) is 2: 2 * 2/3 records with class 1, 2 * 1/3 with class 0.
    np.testing.assert_allclose(answers[1], [2 / 3, 4 / 3])


def test_marginal_answers_rescale_synthetic_counts_by_n_over_m():
    codes, radix = _three_records()
    qs = build_queries(codes, radix, [3], None, np.random.default_rng(0))
    synthetic = np.array([[0, 1], [0, 1], [0, 1], [1, 1]])
    secret = np.array([1, 1, 0, 0])
    answers, answered = answer_queries(qs, synthetic, secret, 2, radix, "marginal")
    assert answered.all()
    # n/m = 3/4; cell (0,1) has 2 synthetic records with class 1 and 1 with class 0.
    np.testing.assert_allclose(answers, [[0, 0], [0.75, 1.5]])


def _brute_force_class_counts(qs, original, synthetic, secret, n_classes):
    """Count, query by query, the synthetic records that share the cell of its original records."""
    counts = np.zeros((qs.n_queries, n_classes))
    for j in range(qs.n_queries):
        combo = list(qs.combos[qs.combo_of_query[j]])
        member = original[qs.matrix[j].indices[0], combo]  # any record of the cell gives its values
        inside = (synthetic[:, combo] == member).all(axis=1)
        counts[j] = np.bincount(secret[inside], minlength=n_classes)
    return counts


def test_synthetic_counts_match_a_brute_force_count_in_small_and_large_cell_spaces():
    rng = np.random.default_rng(3)
    # Two columns with 700 values make a 4-way cell space far above the direct table's size.
    radix = np.array([3, 4, 700, 700, 5])
    original = np.column_stack([rng.integers(0, r, 300) for r in radix])
    synthetic = np.column_stack([rng.integers(0, r, 3000) for r in radix])
    synthetic[rng.random(synthetic.shape) < 0.02] = UNSEEN
    secret = rng.integers(0, 3, 3000)
    qs = build_queries(original, radix, [3, 4, 5], 2000, np.random.default_rng(0))
    answers, answered = answer_queries(qs, synthetic, secret, 3, radix, "marginal")
    expected = _brute_force_class_counts(qs, original, synthetic, secret, 3)
    np.testing.assert_allclose(answers, expected * 300 / 3000)


def test_a_cell_space_beyond_int64_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="more cells than an int64"):
        cell_ids(np.zeros((2, 10), dtype=np.int64), np.full(10, 100))
