"""Exact k nearest records: the same as sorting every Gower distance."""

import numpy as np
import pandas as pd

from policycheck.methods.gower import fit_gower, gower_sums
from policycheck.methods.k_nearest_neighbours import k_nearest
from policycheck.release.model import ColumnType


def test_k_nearest_equals_a_full_sort_with_ties_to_the_smaller_index():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"x": rng.integers(0, 5, 300).astype(float), "c": rng.choice(list("abc"), 300)})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}, {}, ["x", "c"])
    data = enc.encode(frame)
    queries, reference = data[:20], data[20:]
    index, distance = k_nearest(queries, reference, enc.kinds, 7)
    for i in range(20):
        d = gower_sums(np.repeat(queries[i : i + 1], len(reference), 0), reference, enc.kinds) / 2
        expected = np.lexsort((np.arange(len(reference)), d))[:7]
        assert index[i].tolist() == expected.tolist()
        assert distance[i].tolist() == d[expected].tolist()


def test_one_nearest_uses_the_branch_and_bound_search():
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"x": rng.normal(size=200), "c": rng.choice(list("ab"), 200)})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}, {}, ["x", "c"])
    data = enc.encode(frame)
    index, _ = k_nearest(data[:50], data[50:], enc.kinds, 1)
    index2, _ = k_nearest(data[:50], data[50:], enc.kinds, 2)
    assert index[:, 0].tolist() == index2[:, 0].tolist()


def test_a_scan_too_small_to_pay_for_a_worker_starts_no_pool():
    from policycheck.execution.local import LocalProcessExecutor

    rng = np.random.default_rng(2)
    frame = pd.DataFrame({"x": rng.normal(size=400), "c": rng.choice(list("abc"), 400)})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}, {}, ["x", "c"])
    data = enc.encode(frame)
    with LocalProcessExecutor(workers=2) as pool:
        index, _ = k_nearest(data, data, enc.kinds, 6, pool)
        assert pool._pool is None  # each worker's first call would have compiled the scan anew
    assert index.tolist() == k_nearest(data, data, enc.kinds, 6)[0].tolist()


def test_a_scan_too_small_for_workers_runs_its_chunks_on_threads_with_the_full_sort_answer(monkeypatch):
    import policycheck.methods.k_nearest_neighbours as knn
    from policycheck.execution.local import LocalProcessExecutor

    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.integers(0, 4, 700).astype(float), "c": rng.choice(list("ab"), 700)})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}, {}, ["x", "c"])
    data = enc.encode(frame)
    threads = []
    side_by_side = knn.side_by_side
    monkeypatch.setattr(knn, "side_by_side", lambda fn, items, n: threads.append(n) or side_by_side(fn, items, n))
    with LocalProcessExecutor(workers=2) as pool:
        index, distance = k_nearest(data, data, enc.kinds, 4, pool)
        assert pool._pool is None
    # the chunks after the pilot (444 queries in two), then the 4 canonical distances: each on the two workers' threads
    assert threads == [2, 2]
    for i in range(0, 700, 97):
        d = gower_sums(np.repeat(data[i : i + 1], len(data), 0), data, enc.kinds) / 2
        expected = np.lexsort((np.arange(len(data)), d))[:4]
        assert index[i].tolist() == expected.tolist()
        assert distance[i].tolist() == d[expected].tolist()


def full_sort(queries, reference, kinds, k):
    """Every query's k smallest (Gower distance, index) pairs, by sorting all of them."""
    p = queries.shape[1]
    index = []
    for q in queries:
        d = gower_sums(np.repeat(q[None, :], len(reference), 0), reference, kinds) / p
        index.append(np.lexsort((np.arange(len(reference)), d))[:k])
    return np.array(index)


def test_grouped_by_categorical_values_the_scan_still_equals_a_full_sort():
    rng = np.random.default_rng(4)
    n = 900
    frame = pd.DataFrame(
        {
            "a": rng.choice(["x", "y", None], n, p=[0.6, 0.3, 0.1]),
            "b": rng.choice(list("pqrs"), n),
            "c": rng.choice(["u", "v"], n),
            "age": rng.integers(18, 30, n).astype(float),  # few values: many equal distances
            "w": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n).round(1)),
        }
    )
    types = {"a": "categorical", "b": "categorical", "c": "categorical", "age": "numeric", "w": "numeric"}
    enc = fit_gower([frame], {c: ColumnType(t) for c, t in types.items()}, {}, list(frame.columns))
    data = enc.encode(frame)
    for k in (2, 6):
        index, _ = k_nearest(data[:300], data, enc.kinds, k)
        assert index.tolist() == full_sort(data[:300], data, enc.kinds, k).tolist()


def test_a_categorical_column_after_a_numeric_one_is_counted_in_the_group_scan():
    rng = np.random.default_rng(5)
    data = np.column_stack([rng.integers(0, 3, 400), rng.integers(0, 4, 400) / 3, rng.integers(0, 2, 400)]).astype(
        float
    )
    kinds = np.array([1, 0, 1], dtype=np.int8)  # categorical, scaled, categorical: only the first leads
    index, _ = k_nearest(data[:100], data, kinds, 5)
    assert index.tolist() == full_sort(data[:100], data, kinds, 5).tolist()


def test_the_reference_rows_group_by_their_leading_categorical_values():
    from policycheck.methods.k_nearest_neighbours import category_groups

    reference = np.array([[1, 0, 0.5], [0, 1, 0.2], [1, 0, 0.9], [0, 1, 0.1], [0, 0, 0.3]], dtype=float)
    order, starts, keys = category_groups(reference, np.array([1, 1, 0], dtype=np.int8))
    # (0, 0), then (0, 1): rows 3 and 1 by their pivot (the scaled column) 0.1 and 0.2, then (1, 0): rows 0 and 2
    assert order.tolist() == [4, 3, 1, 0, 2]
    assert starts.tolist() == [0, 1, 3, 5]
    assert keys.tolist() == [[0, 0], [0, 1], [1, 0]]
    order, starts, keys = category_groups(reference, np.array([0, 1, 1], dtype=np.int8))
    # No leading categorical column: one group, by the first column's value, ties in index order.
    assert order.tolist() == [1, 3, 4, 0, 2] and starts.tolist() == [0, 5] and keys.shape == (1, 0)


def test_rows_group_the_same_when_their_values_are_too_many_for_one_integer_key():
    from policycheck.methods.k_nearest_neighbours import category_groups

    # Ten columns of up to 1,000 codes: 1,001 ** 10 combinations, past 62 bits, so every column is a key.
    rng = np.random.default_rng(4)
    reference = np.column_stack([rng.integers(0, 2, 60) * 999 - 1 for _ in range(10)] + [rng.random(60)]).astype(float)
    order, starts, keys = category_groups(reference, np.array([1] * 10 + [0], dtype=np.int8))
    assert order.tolist() == np.lexsort(reference.T[::-1]).tolist()
    values = [tuple(r) for r in reference[order, :10]]
    assert starts.tolist() == [0, *(i for i in range(1, 60) if values[i] != values[i - 1]), 60]
    assert keys.tolist() == [list(values[i]) for i in starts[:-1]]


def test_missing_categorical_values_group_first_in_each_column():
    from policycheck.methods.k_nearest_neighbours import category_groups

    reference = np.array([[1, 0, 0.5], [-1, 1, 0.2], [1, -1, 0.9], [0, -1, 0.1], [-1, 1, 0.05]], dtype=float)
    order, starts, keys = category_groups(reference, np.array([1, 1, 0], dtype=np.int8))
    # (-1, 1): rows 4, 1 by pivot; (0, -1): row 3; (1, -1): row 2; (1, 0): row 0
    assert order.tolist() == [4, 1, 3, 2, 0]
    assert starts.tolist() == [0, 2, 3, 4, 5]
    assert keys.tolist() == [[-1, 1], [0, -1], [1, -1], [1, 0]]


def test_many_small_groups_and_a_pivot_with_missing_values_still_equal_a_full_sort():
    # Four categorical columns of many levels (most groups hold a few rows: the scan goes to the groups
    # one value away, and past them when those are too few), then a pivot of few values, missing for a
    # tenth of the rows (-1, as the encoding gives), then one more scaled column.
    rng = np.random.default_rng(6)
    n = 1500
    categorical = rng.integers(-1, 6, (n, 4)).astype(float)
    pivot = np.where(rng.random(n) < 0.1, -1.0, rng.integers(0, 8, n) / 7)
    data = np.column_stack([categorical, pivot, rng.random(n).round(2)])
    kinds = np.array([1, 1, 1, 1, 0, 0], dtype=np.int8)
    # Queries from the reference, and others whose pivot is missing or beyond the reference's values.
    outside = data[:40].copy()
    outside[:20, 4] = -1.0
    outside[20:, 4] = 1.3
    queries = np.vstack([data[:200], outside])
    for k in (2, 6, 11):
        index, _ = k_nearest(queries, data, kinds, k)
        assert index.tolist() == full_sort(queries, data, kinds, k).tolist()


def test_groups_one_value_away_come_from_every_categorical_column():
    from policycheck.methods.k_nearest_neighbours import one_away_orders

    keys = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 1, 1]], dtype=float)
    orders = one_away_orders(keys)
    # Without column 0 the values are (0, 1), (1, 0), (0, 0), (1, 1): sorted 2, 0, 1, 3; without column 1,
    # (0, 1), (0, 0), (1, 0), (1, 1): 1, 0, 2, 3; without column 2 they are in order already.
    assert orders.tolist() == [[2, 0, 1, 3], [1, 0, 2, 3], [0, 1, 2, 3]]


def test_tasks_of_every_size_after_the_pilot_give_the_full_sort_answer(monkeypatch):
    import policycheck.methods.k_nearest_neighbours as knn

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"x": rng.normal(size=300), "c": rng.choice(list("abcd"), 300)})
    enc = fit_gower([frame], {"x": ColumnType.NUMERIC, "c": ColumnType.CATEGORICAL}, {}, ["x", "c"])
    data = enc.encode(frame)
    scanned = []
    scan = knn._scan_chunk
    monkeypatch.setattr(knn, "_scan_chunk", lambda task: scanned.append(len(task[0])) or scan(task))
    monkeypatch.setattr(knn, "CHUNK", 7)
    monkeypatch.setattr(knn, "TASK_QUERIES", 40)
    index, _ = k_nearest(data, data, enc.kinds, 3)
    # a one-query warm-up, the pilot of 7, then 293 queries in tasks of 40 (7 of them) and the 13 left
    assert scanned == [1, 7, *[40] * 7, 13]
    assert index.tolist() == full_sort(data, data, enc.kinds, 3).tolist()
