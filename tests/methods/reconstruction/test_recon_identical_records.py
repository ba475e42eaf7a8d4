"""Merging identical records before the solve gives the guesses HiGHS gave the unmerged LP."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from bench import bench_whole_check
from policycheck.interfaces.demo import HOLDOUT, TRAINING
from policycheck.methods.reconstruction import lp_attack
from policycheck.methods.reconstruction.baselines import class_codes
from policycheck.methods.reconstruction.encoding import fit_encoding
from policycheck.methods.reconstruction.identical_records import record_groups, split_group_sums
from policycheck.methods.reconstruction.queries import answer_queries, build_queries
from policycheck.methods.synthesizers import BUILTIN

ADULT_QIS = ["age", "sex", "race", "marital_status", "education", "native_country", "workclass"]


def solve_unmerged(matrix, answers):
    """The solve before records were merged: the bench's reference (bench/bench_whole_check.py)."""
    guesses, info = bench_whole_check.solve_unmerged(matrix, answers)
    assert info["optimal"]
    return guesses, info["objective"]


def attack_lps(targets, synthetic, qis, numeric, secret, n_queries=None, orders=(3,)):
    """The LP attack's LPs per solved class: ``(matrix, answers, distinct_matrix, records)``, the query
    matrix over every record and, as lp_reconstruction builds it, over the distinct rows of their codes."""
    classes = np.array(sorted(pd.concat([targets[secret], synthetic[secret]]).dropna().unique(), key=str), dtype=object)
    encoding = fit_encoding(targets, qis, numeric, 5)
    codes = encoding.codes(targets)
    distinct, records, copies = np.unique(codes, axis=0, return_inverse=True, return_counts=True)
    secret_codes = class_codes(synthetic[secret], classes)
    out = []
    for rows, weights in ((codes, None), (distinct, copies)):
        queries = build_queries(rows, encoding.radix, list(orders), n_queries, np.random.default_rng(4), weights)
        answers, answered = answer_queries(
            queries, encoding.codes(synthetic), secret_codes, len(classes), encoding.radix
        )
        out.append((queries.matrix[answered], answers[answered]))
    (matrix, answers), (distinct_matrix, distinct_answers) = out
    np.testing.assert_array_equal(answers, distinct_answers)
    solved = [1] if len(classes) == 2 else range(len(classes))
    return [(matrix, answers[:, k], distinct_matrix, records.ravel()) for k in solved]


def assert_same_solution(matrix, answers, distinct_matrix, records):
    expected, objective = solve_unmerged(matrix, answers)
    for t, info in (
        lp_attack.solve_l1_reconstruction(matrix, answers),
        lp_attack.solve_l1_reconstruction(distinct_matrix, answers, records=records),
    ):
        assert info.form == "primal"
        assert info.solved[1] < info.columns  # something was merged
        # The LP as posed: a column per record and two per (merged) query, as before merging records.
        merged = lp_attack.merge_duplicate_queries(sp.csr_matrix(matrix, dtype=float), answers)[0]
        q = merged.shape[0]
        assert (info.rows, info.columns, info.nonzeros) == (q, matrix.shape[1] + 2 * q, merged.nnz + 2 * q)
        assert ((t >= 0.5) == (expected >= 0.5)).all()
        np.testing.assert_allclose(t, expected, rtol=0, atol=1e-9)
        assert info.objective == pytest.approx(objective, rel=1e-12)


def read(path):
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


@pytest.mark.parametrize("synthesizer", ["nonprivate", "indhist"])
@pytest.mark.parametrize("records", ["training", "holdout"])
def test_the_demo_lps_give_the_unmerged_guesses(synthesizer, records):
    original = read(TRAINING)
    synthetic = BUILTIN[synthesizer](original, len(original), np.random.default_rng(11))
    targets = original if records == "training" else read(HOLDOUT)
    for lp in attack_lps(targets, synthetic, ADULT_QIS, ["age"], "income"):
        assert_same_solution(*lp)


def test_a_bootstrapped_adult_of_20000_records_gives_the_unmerged_guesses():
    # Groups of a few to hundreds of identical records (about 4,000 distinct columns).
    original = read(TRAINING)
    rng = np.random.default_rng(5)
    targets = original.iloc[rng.integers(0, len(original), 20_000)].reset_index(drop=True)
    synthetic = BUILTIN["nonprivate"](targets, 20_000, rng)
    for lp in attack_lps(targets, synthetic, ADULT_QIS, ["age"], "income"):
        assert_same_solution(*lp)


def test_a_secret_of_several_classes_gives_the_unmerged_guesses_in_every_class():
    original = read(TRAINING)
    synthetic = BUILTIN["nonprivate"](original, len(original), np.random.default_rng(2))
    qis = ["age", "sex", "race", "education", "workclass"]
    lps = attack_lps(original, synthetic, qis, ["age"], "marital_status")
    assert len(lps) == 7
    for lp in lps:
        assert_same_solution(*lp)


@pytest.mark.parametrize("n_queries, orders", [(40, (3,)), (150, (3, 4))])
def test_a_query_budget_on_rand_hie_gives_the_unmerged_guesses(n_queries, orders):
    # Few queries: records of different quasi-identifiers share every kept query, and many records
    # are in one query only (columns HiGHS fixes rather than merges, which must stay apart).
    training = read(Path(__file__).resolve().parents[3] / "calibration" / "data" / "randhie_training.csv")
    synthetic = BUILTIN["indhist"](training, len(training), np.random.default_rng(3))
    qis = [c for c in training.columns if c != "health"]
    numeric = ["mdvis", "lpi", "fmde", "physlm", "disea"]
    for lp in attack_lps(training, synthetic, qis, numeric, "health", n_queries=n_queries, orders=orders):
        assert_same_solution(*lp)


def test_a_query_budget_on_adult_gives_the_unmerged_guesses():
    original = read(TRAINING)
    synthetic = BUILTIN["nonprivate"](original, len(original), np.random.default_rng(1))
    for lp in attack_lps(original, synthetic, ADULT_QIS, ["age"], "income", n_queries=60):
        assert_same_solution(*lp)


def test_records_with_equal_columns_are_grouped_at_their_first_record():
    a = sp.csr_matrix([[1, 0, 1, 0, 1, 1], [0, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1]])
    # Columns 0 and 2 are equal, 1 and 3 are equal, 4 stands alone; 5 (a copy of none) too.
    columns, first, group = record_groups(a)
    assert first.tolist() == [0, 1, 4, 5] and group.tolist() == [0, 1, 0, 1, 2, 3]
    assert columns.tolist() == [0, 1, 4, 5]


def test_records_of_one_column_and_of_equal_columns_form_one_group():
    # Columns: 0 = (1, 1), 1 = (1, 0) alone... records 0..4 stand on columns 1, 0, 2, 0, 1; column 2 equals 0.
    a = sp.csr_matrix([[1, 1, 1], [1, 0, 1]])
    columns, first, group = record_groups(a, np.array([1, 0, 2, 0, 1]))
    # Column 1 has one non-zero: its records 0 and 4 stay alone. Records 1, 2, 3 form one group.
    assert first.tolist() == [0, 1, 4] and group.tolist() == [0, 1, 1, 1, 2]
    assert columns.tolist() == [1, 0, 1]


def test_columns_with_a_single_non_zero_are_never_merged():
    a = sp.csr_matrix([[1, 1, 1, 1], [0, 0, 1, 1]])
    _, first, group = record_groups(a)
    assert first.tolist() == [0, 1, 2] and group.tolist() == [0, 1, 2, 2]


def test_columns_with_the_same_rows_but_other_values_are_not_merged():
    a = sp.csr_matrix([[1.0, 2.0], [1.0, 1.0]])
    _, first, _ = record_groups(a)
    assert first.tolist() == [0, 1]


def test_a_group_sum_goes_to_its_last_records_first():
    # Group 0 = records 0, 2, 3 with sum 1.25: record 3 takes 1, record 2 the remaining 0.25,
    # record 0 nothing. Group 1 = records 1, 4 with sum 2: both at 1.
    t = split_group_sums(np.array([1.25, 2.0]), np.array([0, 1, 0, 0, 1]))
    assert t.tolist() == [0.0, 1.0, 0.25, 1.0, 1.0]


def test_the_dual_form_over_distinct_rows_is_the_dual_over_records():
    # The dual (a row per record) merges nothing: given distinct rows, it expands them back.
    original = read(TRAINING).iloc[:400]
    synthetic = BUILTIN["nonprivate"](original, 400, np.random.default_rng(2))
    ((matrix, answers, distinct_matrix, records),) = attack_lps(
        original, synthetic, ADULT_QIS, ["age"], "income", orders=(3, 4)
    )
    t, info = lp_attack.solve_l1_reconstruction(matrix, answers, form="dual")
    t_distinct, info_distinct = lp_attack.solve_l1_reconstruction(
        distinct_matrix, answers, form="dual", records=records
    )
    assert info.form == info_distinct.form == "dual"
    assert np.array_equal(t, t_distinct) and info.as_dict() | {"seconds": 0} == info_distinct.as_dict() | {"seconds": 0}
