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
    assert threads == [2]  # three chunks of 256 queries, on the two workers' threads
    for i in range(0, 700, 97):
        d = gower_sums(np.repeat(data[i : i + 1], len(data), 0), data, enc.kinds) / 2
        expected = np.lexsort((np.arange(len(data)), d))[:4]
        assert index[i].tolist() == expected.tolist()
        assert distance[i].tolist() == d[expected].tolist()
