"""The exact DCR search against a brute-force reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policycheck.execution.executor import SerialExecutor
from policycheck.execution.local import LocalProcessExecutor
from policycheck.methods import nearest_neighbours
from policycheck.methods.gower import fit_gower, gower_sums
from policycheck.methods.nearest_neighbours import (
    BRUTE_FORCE,
    PROJECTION,
    SearchJob,
    brute_force_search,
    closest_records,
    exact_copy_index,
    projection_search,
    tree_search,
)
from policycheck.methods.nearest_neighbours import search as search_module
from policycheck.release.model import ColumnType

TYPES = {
    "x": ColumnType.NUMERIC,
    "c": ColumnType.CATEGORICAL,
    "k": ColumnType.CATEGORICAL,
    "flat": ColumnType.NUMERIC,
    "grade": ColumnType.ORDINAL,
}
ORDERS = {"grade": ["lo", "mid", "hi"]}

# Few distinct values, so exact ties are common.
record = st.tuples(
    st.sampled_from([0.0, 0.5, 1.0, 2.5, math.nan]),
    st.sampled_from(["a", "b", "c", None]),
    st.sampled_from(["u", "v"]),
    st.sampled_from([7.0, math.nan]),
    st.sampled_from(["lo", "mid", "hi", None]),
)


def frame(rows) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=list(TYPES)).astype({"x": float, "flat": float})


def brute_force(queries: pd.DataFrame, reference: pd.DataFrame, union: list[pd.DataFrame], features: list[str]):
    """Gower DCR from the raw values, straight from the convention's words."""
    both = pd.concat(union)
    ranges = {c: both[c].max() - both[c].min() for c in ("x", "flat")}
    rank = {v: i / 2 for i, v in enumerate(ORDERS["grade"])}

    def term(col, a, b):
        a_missing, b_missing = pd.isna(a), pd.isna(b)
        if a_missing or b_missing:
            return 0.0 if a_missing and b_missing else 1.0
        if TYPES[col] is ColumnType.CATEGORICAL:
            return 0.0 if a == b else 1.0
        if col == "grade":
            return abs(rank[a] - rank[b])
        r = ranges[col]
        return abs(a - b) / r if r > 0 else 0.0

    out = []
    for q in queries[features].itertuples(index=False):
        d = np.array(
            [
                sum(term(c, qa, ra) for c, qa, ra in zip(features, q, r, strict=True)) / len(features)
                for r in reference[features].itertuples(index=False)
            ]
        )
        best = d.min()
        out.append((best, int(np.flatnonzero(np.abs(d - best) < 1e-12)[0])))
    return out


# Mixed; numeric and ordinal only (no prefix tree); categorical only (no leaf scan).
FEATURE_SETS = st.sampled_from([list(TYPES), ["x", "flat", "grade"], ["c", "k"]])


@settings(max_examples=50, deadline=None)
@given(st.lists(record, min_size=1, max_size=25), st.lists(record, min_size=1, max_size=25), FEATURE_SETS)
def test_search_matches_brute_force_distances_and_smallest_index_among_ties(query_rows, reference_rows, features):
    queries, reference = frame(query_rows), frame(reference_rows)
    enc = fit_gower([queries, reference], TYPES, ORDERS, features)
    (found,) = closest_records([SearchJob(enc.encode(queries), enc.encode(reference))], enc.kinds)
    for i, (distance, index) in enumerate(brute_force(queries, reference, [queries, reference], features)):
        assert abs(found.distance[i] - distance) < 1e-12
        assert found.index[i] == index


@settings(max_examples=40, deadline=None)
@given(st.lists(record, min_size=1, max_size=25), st.lists(record, min_size=1, max_size=25), FEATURE_SETS)
def test_search_returns_the_exact_canonical_minimum(query_rows, reference_rows, features):
    queries, reference = frame(query_rows), frame(reference_rows)
    enc = fit_gower([queries, reference], TYPES, ORDERS, features)
    xq, xr = enc.encode(queries), enc.encode(reference)
    (found,) = closest_records([SearchJob(xq, xr)], enc.kinds)
    # Each search alone, without the exact-copy shortcut or the pilot's choice.
    searched = tree_search(xq, xr, enc.n_categorical)
    brute = brute_force_search(xq, xr)
    for i in range(len(xq)):
        all_d = gower_sums(np.repeat(xq[i : i + 1], len(xr), axis=0), xr, enc.kinds) / enc.p
        assert found.distance[i] == all_d.min()
        assert found.index[i] == np.flatnonzero(all_d == all_d.min())[0]
        assert searched[i] == found.index[i]
        assert brute[i] == found.index[i]


@pytest.mark.parametrize("features", [list(TYPES), ["x", "flat", "grade"], ["c", "k"]])
def test_search_on_hundreds_of_tied_records_returns_the_canonical_minimum(features):
    rng = np.random.default_rng(11)

    def draw(n):
        return pd.DataFrame(
            {
                "x": rng.choice([0.0, 0.25, 0.5, 1.0, np.nan], n),
                "c": rng.choice(["a", "b", "c", None], n),
                "k": rng.choice(["u", "v"], n),
                "flat": rng.choice([7.0, np.nan], n, p=[0.9, 0.1]),
                "grade": rng.choice(["lo", "mid", "hi", None], n),
            }
        )

    queries, reference = draw(300), draw(400)
    enc = fit_gower([queries, reference], TYPES, ORDERS, features)
    xq, xr = enc.encode(queries), enc.encode(reference)
    searched = tree_search(xq, xr, enc.n_categorical)
    brute = brute_force_search(xq, xr)
    for i in range(len(xq)):
        all_d = gower_sums(np.repeat(xq[i : i + 1], len(xr), axis=0), xr, enc.kinds)
        assert searched[i] == np.flatnonzero(all_d == all_d.min())[0]
        assert brute[i] == searched[i]


def test_equal_records_in_two_reference_sets_give_bit_identical_distances():
    rng = np.random.default_rng(3)
    raw = pd.DataFrame({"x": rng.random(40), "c": rng.choice(["a", "b"], 40), "k": "u", "flat": 7.0, "grade": "lo"})
    shuffled = raw.sample(frac=1.0, random_state=4).reset_index(drop=True)
    queries = raw.assign(x=raw["x"] + 0.013)
    enc = fit_gower([raw, queries], TYPES, ORDERS, list(TYPES))
    xq = enc.encode(queries)
    jobs = [SearchJob(xq, enc.encode(raw)), SearchJob(xq, enc.encode(shuffled))]
    to_raw, to_shuffled = closest_records(jobs, enc.kinds)
    assert np.array_equal(to_raw.distance, to_shuffled.distance)


def test_exact_copy_index_finds_the_smallest_identical_row():
    reference = np.array([[1.0, 0.5], [0.0, 0.2], [1.0, 0.5], [0.0, -1.0]])
    queries = np.array([[1.0, 0.5], [0.0, -1.0], [0.0, 0.3]])
    assert exact_copy_index(queries, reference).tolist() == [0, 3, -1]


def test_many_chunks_on_a_process_pool_give_the_serial_result():
    rng = np.random.default_rng(7)
    n = 1500
    raw = pd.DataFrame(
        {
            "x": rng.integers(0, 1000, n).astype(float),
            "c": rng.choice(["a", "b", "c", None], n),
            "k": rng.choice(["u", "v"], n),
            "flat": 7.0,
            "grade": rng.choice(["lo", "mid", "hi"], n),
        }
    )
    queries, reference = raw.iloc[:700], raw.iloc[700:]
    enc = fit_gower([raw], TYPES, ORDERS, list(TYPES))
    job = SearchJob(enc.encode(queries), enc.encode(reference))
    (serial,) = closest_records([job], enc.kinds, SerialExecutor())
    with LocalProcessExecutor(2) as pool:
        (pooled,) = closest_records([job], enc.kinds, pool)
    assert np.array_equal(serial.distance, pooled.distance)
    assert np.array_equal(serial.index, pooled.index)


def test_exact_copy_index_treats_minus_zero_as_zero_and_checks_rows_exactly():
    reference = np.array([[-0.0, 1.0], [0.0, 1.0], [2.0, 3.0]])
    queries = np.array([[0.0, 1.0], [2.0, 3.0000000000000004]])
    assert exact_copy_index(queries, reference).tolist() == [0, -1]


def test_exact_copy_index_agrees_with_a_row_by_row_comparison_on_many_duplicates():
    rng = np.random.default_rng(5)
    reference = rng.integers(0, 3, size=(2000, 3)).astype(float)
    queries = rng.integers(0, 4, size=(500, 3)).astype(float)
    expected = [next((j for j in range(len(reference)) if np.array_equal(q, reference[j])), -1) for q in queries]
    assert exact_copy_index(queries, reference).tolist() == expected


@pytest.mark.parametrize("columns", [30, 3])
def test_brute_force_and_branch_and_bound_agree_on_continuous_columns_with_ties(columns):
    # Values on a coarse grid: many records at exactly the same distance.
    rng = np.random.default_rng(columns)
    grid = rng.integers(0, 4, size=(1200, columns)) / 3.0
    grid[rng.random(grid.shape) < 0.05] = -1.0  # missing values
    queries, reference = grid[:300], grid[300:]
    kinds = np.zeros(columns, dtype=np.int8)
    brute = brute_force_search(queries, reference)
    tree = tree_search(queries, reference, 0)
    assert np.array_equal(brute, tree)
    for i in range(0, 300, 37):
        all_d = gower_sums(np.repeat(queries[i : i + 1], len(reference), axis=0), reference, kinds)
        assert brute[i] == np.flatnonzero(all_d == all_d.min())[0]


def test_a_thousand_level_categorical_gives_the_canonical_minimum():
    rng = np.random.default_rng(2)
    n = 3000
    x = np.column_stack([rng.integers(0, 1000, n), rng.integers(0, 3, n), rng.integers(0, 50, n) / 49.0]).astype(float)
    kinds = np.array([1, 1, 0], dtype=np.int8)
    queries, reference = x[:500], x[500:]
    (found,) = closest_records([SearchJob(queries, reference)], kinds)
    brute = brute_force_search(queries, reference)
    tree = tree_search(queries, reference, 2)
    assert np.array_equal(found.index, brute) and np.array_equal(brute, tree)
    all_d = gower_sums(np.repeat(queries[:1], len(reference), axis=0), reference, kinds)
    assert found.index[0] == np.flatnonzero(all_d == all_d.min())[0]


def test_the_walk_stack_holds_the_root_and_the_widest_node_of_every_depth():
    from policycheck.methods.nearest_neighbours import build_prefix_tree

    # Depth 0: codes 0..1999 under the root (2,000 children); depth 1: at most 3 under one of them.
    rng = np.random.default_rng(8)
    reference = np.column_stack([rng.permutation(2000) % 1000, rng.integers(0, 3, 2000), rng.random(2000)])
    tree = build_prefix_tree(reference.astype(float), 2)
    widest = max(len(np.unique(reference[reference[:, 0] == c, 1])) for c in range(1000))
    assert tree.stack == 1 + 1000 + widest
    # The first query pushes 999 siblings at once: the search still agrees with the brute force.
    queries = np.column_stack([rng.integers(0, 1200, 200), rng.integers(0, 3, 200), rng.random(200)]).astype(float)
    assert np.array_equal(
        tree_search(queries, reference.astype(float), 2), brute_force_search(queries, reference.astype(float))
    )


@pytest.mark.parametrize("columns", [30, 3])
def test_the_projection_scan_agrees_with_the_brute_force_on_continuous_columns_with_ties(columns):
    rng = np.random.default_rng(columns + 1)
    grid = rng.integers(0, 4, size=(1200, columns)) / 3.0
    grid[rng.random(grid.shape) < 0.05] = -1.0  # missing values
    queries, reference = grid[:300], grid[300:]
    kinds = np.zeros(columns, dtype=np.int8)
    brute = brute_force_search(queries, reference)
    assert np.array_equal(projection_search(queries, reference), brute)
    for i in range(0, 300, 37):
        all_d = gower_sums(np.repeat(queries[i : i + 1], len(reference), axis=0), reference, kinds)
        assert brute[i] == np.flatnonzero(all_d == all_d.min())[0]


def test_the_projection_bound_holds_for_values_beyond_the_fitted_range():
    # A set the encoding was not fitted on can hold values above 1: each term is still at most 1.
    rng = np.random.default_rng(12)
    reference = rng.random((2000, 8)) * 1.6
    queries = np.clip(reference[:400] + rng.normal(0, 0.3, (400, 8)), -1.0, 2.0)
    queries[queries < 0] = -1.0
    assert np.array_equal(projection_search(queries, reference), brute_force_search(queries, reference))


def test_near_copies_on_thirty_continuous_columns_are_found_by_the_projection_scan():
    # A leaky release: every query is a reference record with a little noise, so the key
    # window around it is narrow and the scan visits a few percent of the records.
    rng = np.random.default_rng(6)
    reference = np.clip(0.5 + 0.15 * rng.normal(size=(6000, 30)) + 0.1 * rng.normal(size=(6000, 1)), 0, 1)
    queries = np.clip(reference[rng.integers(0, 6000, 2000)] + rng.normal(0, 0.01, (2000, 30)), 0, 1)
    (found,) = closest_records([SearchJob(queries, reference)], np.zeros(30, dtype=np.int8))
    assert found.method == PROJECTION
    assert np.array_equal(found.index, brute_force_search(queries, reference))


def test_thirty_continuous_columns_are_searched_by_brute_force():
    rng = np.random.default_rng(4)
    x = rng.random((3000, 30))
    # No near copies: the projection window spans most records, and the brute force is faster.
    (found,) = closest_records([SearchJob(x[:1000], x[1000:])], np.zeros(30, dtype=np.int8))
    assert found.method == BRUTE_FORCE


def test_the_compiled_recompute_of_the_chosen_distance_is_gower_sums_bit_for_bit():
    from policycheck.methods.nearest_neighbours import gower_sums_at

    rng = np.random.default_rng(5)
    n, kinds = 2000, np.array([1, 1, 0, 0, 0], dtype=np.int8)

    def rows(m):
        x = np.column_stack([rng.integers(-1, 3, m), rng.integers(0, 5, m), rng.random((m, 3))]).astype(float)
        x[:, 2:][rng.random((m, 3)) < 0.1] = -1.0  # missing numeric values
        return x

    queries, reference = rows(n), rows(300)
    index = rng.integers(0, 300, n)
    compiled = gower_sums_at(queries, reference, index, kinds)
    assert compiled.tobytes() == gower_sums(queries, reference[index], kinds).tobytes()


def test_prefix_tree_run_ends_are_the_next_run_start_at_every_depth():
    from policycheck.methods.nearest_neighbours import build_prefix_tree

    reference = np.array([[0, 0, 0.5], [0, 1, 0.1], [1, 0, 0.2], [0, 0, 0.3], [1, 0, 0.9]], dtype=float)
    tree = build_prefix_tree(reference, 2)
    # Sorted by (c0, c1, x): rows 3, 0 | 1 | 2, 4 -> c0 runs [0, 3) [3, 5); (c0, c1) runs [0, 2) [2, 3) [3, 5).
    assert tree.original.tolist() == [3, 0, 1, 2, 4]
    assert tree.run_end.tolist() == [[3, 3, 3, 5, 5], [2, 2, 3, 5, 5]]
    # Pending nodes at most: the root, 2 children of the root, 2 children of c0 = 0.
    assert tree.stack == 5


def test_prefix_tree_order_from_packed_codes_is_the_order_of_every_code():
    from policycheck.methods.nearest_neighbours import build_prefix_tree

    rng = np.random.default_rng(9)
    reference = np.column_stack(
        [
            rng.integers(-1, 3, 5000),
            rng.integers(0, 20, 5000),
            rng.integers(-1, 2, 5000),
            rng.choice([0.1, 0.2, 0.3], 5000),
        ]
    ).astype(float)
    tree = build_prefix_tree(reference, 3)
    # np.lexsort on every column (last key first) is the definition of the order.
    assert tree.original.tolist() == np.lexsort([reference[:, d] for d in (3, 2, 1, 0)]).tolist()


def test_prefix_tree_order_is_the_same_when_the_codes_span_too_many_values_to_count():
    from policycheck.methods.nearest_neighbours import build_prefix_tree

    # 300 rows whose packed codes span 100 x 100 values (over 4 x 300): sorted by lexsort, not counted.
    rng = np.random.default_rng(10)
    reference = np.column_stack(
        [rng.integers(0, 100, 300), rng.integers(0, 100, 300), rng.choice([0.1, 0.2], 300)]
    ).astype(float)
    tree = build_prefix_tree(reference, 2)
    assert tree.original.tolist() == np.lexsort([reference[:, d] for d in (2, 1, 0)]).tolist()


def test_tree_queries_are_searched_in_the_order_of_the_trees_leaves():
    # Two categorical columns of two levels each, then a number: leaves sort by (first, second) code.
    reference = np.array([[0.0, 0.0, 0.5], [1.0, 1.0, 0.2]])
    queries = np.array([[1.0, 0.0, 0.1], [0.0, 1.0, 0.9], [0.0, 0.0, 0.3], [1.0, 0.0, 0.0], [0.0, 1.0, 0.4]])
    order = nearest_neighbours._Reference(reference, 2).walk_order(queries, np.arange(5))
    # (0,0): row 2; (0,1): rows 1, 4 in row order; (1,0): rows 0, 3.
    assert order.tolist() == [2, 1, 4, 0, 3]


def test_prefix_tree_in_a_column_order_is_the_tree_of_the_reordered_rows():
    from policycheck.methods.nearest_neighbours import build_prefix_tree

    rng = np.random.default_rng(4)
    reference = np.column_stack(
        [rng.random(400), rng.integers(0, 5, 400), rng.integers(-1, 3, 400), rng.random(400)]
    ).astype(float)
    columns = np.array([2, 1, 3, 0])
    made = []

    def empty(shape, dtype):
        made.append((shape, np.dtype(dtype)))
        return np.empty(shape, dtype)

    tree = build_prefix_tree(reference, 2, columns, empty)
    reordered = build_prefix_tree(np.ascontiguousarray(reference[:, columns]), 2)
    assert tree.original.tolist() == reordered.original.tolist()
    assert tree.rows.tobytes() == reference[np.ix_(tree.original, columns)].tobytes()
    assert tree.run_end.tolist() == reordered.run_end.tolist()
    # The sorted rows and the run ends are made by the caller's allocator (an executor's shared memory).
    assert made == [((400, 4), np.dtype(np.float64)), ((2, 400), np.dtype(np.int64))]


def _mixed_rows(rng: np.random.Generator, n: int, numbers: int = 2) -> np.ndarray:
    """Encoded rows: two categorical codes first, then ``numbers`` numbers in [0, 1]."""
    return np.column_stack([rng.integers(0, 4, n), rng.integers(0, 3, n), rng.random((n, numbers))]).astype(float)


def _counting_by_column(monkeypatch) -> list[int]:
    """Record every time a reference's column-major copy (the brute force's) is made."""
    made: list[int] = []
    by_column = nearest_neighbours._Reference.by_column

    def counted(self):
        if self._by_column is None:
            made.append(self.reference.shape[0])
        return by_column(self)

    monkeypatch.setattr(nearest_neighbours._Reference, "by_column", counted)
    return made


def test_a_large_reference_beside_a_pruning_tree_gets_no_brute_force_copy(monkeypatch):
    # The pilot times the brute force on the first 500 of 3,000 reference records; the tree wins.
    monkeypatch.setattr(search_module, "PILOT_REFERENCE", 500)
    made = _counting_by_column(monkeypatch)
    rng = np.random.default_rng(9)
    reference, queries = _mixed_rows(rng, 3000), _mixed_rows(rng, 500)
    (found,) = closest_records([SearchJob(queries, reference)], np.array([1, 1, 0, 0], dtype=np.int8))
    assert found.method == nearest_neighbours.TREE
    assert made == []
    assert np.array_equal(found.index, brute_force_search(queries, reference))


def test_a_tree_that_stops_pruning_loses_the_pilot_to_the_sampled_brute_force(monkeypatch):
    # Two categorical columns and 30 random numbers: every branch stays open, and the brute force
    # timed on 500 of the 3,000 records, scaled, still wins; it then searches the whole reference.
    monkeypatch.setattr(search_module, "PILOT_REFERENCE", 500)
    made = _counting_by_column(monkeypatch)
    rng = np.random.default_rng(10)
    reference, queries = _mixed_rows(rng, 3000, numbers=30), _mixed_rows(rng, 300, numbers=30)
    kinds = np.array([1, 1] + [0] * 30, dtype=np.int8)
    (found,) = closest_records([SearchJob(queries, reference)], kinds)
    assert found.method == BRUTE_FORCE
    assert made == [3000]
    assert np.array_equal(found.index, brute_force_search(queries, reference))


@pytest.mark.parametrize(
    ("column", "levels"),
    [
        ([2.0, -1.0, 0.0, 2.0, 5.0], 4),  # codes, -1 missing
        ([0.0, -0.0, 1.0], 2),  # -0.0 is 0.0
        ([0.5, 1.0, 0.5], 2),  # not integers: counted by sorting
        ([math.nan, math.nan, 1.0], 2),  # NaN once, as np.unique counts it
        ([-2.0, 3.0, 3.0], 2),  # below -1: not a code
        ([1e12, 0.0], 2),  # too far apart to count in a table
        ([], 0),
    ],
)
def test_a_columns_levels_are_counted_as_np_unique_counts_them(column, levels):
    from policycheck.methods.nearest_neighbours.prefix_tree import _distinct_count

    assert _distinct_count(np.array(column, dtype=float)) == levels
