"""The exact DCR search against a brute-force reference."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policycheck.executor import LocalProcessExecutor, SerialExecutor
from policycheck.methods.gower import fit_gower, gower_sums
from policycheck.methods.nearest_neighbours import (
    SearchJob,
    build_prefix_tree,
    closest_records,
    exact_copy_index,
    search_chunk,
)
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
    # The branch and bound alone, without the exact-copy shortcut.
    searched = search_chunk((xq, build_prefix_tree(xr, enc.n_categorical), enc.n_categorical))
    for i in range(len(xq)):
        all_d = gower_sums(np.repeat(xq[i : i + 1], len(xr), axis=0), xr, enc.kinds) / enc.p
        assert found.distance[i] == all_d.min()
        assert found.index[i] == np.flatnonzero(all_d == all_d.min())[0]
        assert searched[i] == found.index[i]


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
    searched = search_chunk((xq, build_prefix_tree(xr, enc.n_categorical), enc.n_categorical))
    for i in range(len(xq)):
        all_d = gower_sums(np.repeat(xq[i : i + 1], len(xr), axis=0), xr, enc.kinds)
        assert searched[i] == np.flatnonzero(all_d == all_d.min())[0]


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
