"""The whole attack (paper 000, secs. 3-4) against an independent brute force of its definition.

The reference below uses none of the package's ranking, reverse-mapping or
linkage code: plain Python sorts and counts, written from the paper.
"""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.linkage.attack import run_attack
from policycheck.methods.linkage.reverse_mapping import attribute_order
from policycheck.release.model import ColumnType, Dataset, Release

TYPES = {"a": ColumnType.NUMERIC, "b": ColumnType.CATEGORICAL, "s": ColumnType.NUMERIC}


def random_frame(rng, n):
    return pd.DataFrame(
        {
            "a": rng.integers(0, 6, n).astype(float),
            "b": rng.choice(["x", "y", "z"], n),
            "s": rng.integers(0, 9, n).astype(float),
        }
    )


def brute_force_attack(original: pd.DataFrame, synthetic: pd.DataFrame, criterion: str):
    """Reverse-map, link by mid-ranks and read the secret, straight from secs. 3.1, 3.2 and 4.

    Returns, per original record, the sorted linked synthetic rows and the lowest and highest
    secret value they carry.
    """
    n = len(original)
    counts = original["b"].value_counts()
    # Nominal categories are ranked by frequency in the original, most frequent first, then label.
    category_rank = {c: i for i, c in enumerate(sorted(counts.index, key=lambda c: (-counts[c], c)))}

    def key(col, value):
        return category_rank[value] if col == "b" else value

    columns = ["a", "b", "s"]
    original_keys = {c: [key(c, v) for v in original[c]] for c in columns}
    synthetic_keys = {c: [key(c, v) for v in synthetic[c]] for c in columns}
    # Reverse mapping: the synthetic value of rank k (ties in row order) becomes the k-th original value.
    mapped = {}
    for c in columns:
        synthetic_order = sorted(range(n), key=lambda r: (synthetic_keys[c][r], r))
        original_sorted = sorted(original_keys[c])
        mapped[c] = [None] * n
        for k, row in enumerate(synthetic_order):
            mapped[c][row] = original_sorted[k]

    def mid_rank(c, value):
        below = sum(1 for v in original_keys[c] if v < value)
        equal = sum(1 for v in original_keys[c] if v == value)
        return below + (equal + 1) / 2

    combine = {"sum": sum, "max": max, "min": min}[criterion]
    linked, low, high = [], [], []
    for i in range(n):
        distance = [
            combine(abs(mid_rank(c, original_keys[c][i]) - mid_rank(c, mapped[c][l])) for c in ("a", "b"))
            for l in range(n)
        ]
        best = min(distance)
        rows = [l for l in range(n) if distance[l] == best]
        linked.append(rows)
        low.append(min(mapped["s"][l] for l in rows))
        high.append(max(mapped["s"][l] for l in rows))
    return linked, low, high


@pytest.mark.parametrize("criterion", ["sum", "max", "min"])
def test_attack_equals_an_independent_brute_force_of_the_paper(criterion):
    rng = np.random.default_rng(11)
    for _ in range(8):
        original = random_frame(rng, 25)
        sets = [random_frame(rng, 25) for _ in range(2)]
        release = Release(
            "r",
            Dataset("original", "original", original),
            tuple(Dataset("synthetic", f"s{m}", f) for m, f in enumerate(sets)),
            None,
            TYPES,
        )
        orders = {c: attribute_order(c, TYPES[c], original[c]) for c in TYPES}
        attack = run_attack(release, "s", ["a", "b"], criterion, orders, [np.random.default_rng(0)] * 2)
        for m, synthetic in enumerate(sets):
            linked, low, high = brute_force_attack(original, synthetic, criterion)
            assert [attack.sets[m].linkage.candidates(i).tolist() for i in range(25)] == linked
            assert attack.disclosure.low[:, m].tolist() == low
            assert attack.disclosure.high[:, m].tolist() == high


def test_the_attack_on_holdout_records_reverse_maps_onto_the_holdout():
    original = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": list("xxyy"), "s": [10.0, 20, 30, 40]})
    holdout = pd.DataFrame({"a": [1.0, 2, 3, 4], "b": list("xxyy"), "s": [10.0, 30, 20, 40]})
    release = Release(
        "r",
        Dataset("original", "original", original),
        (Dataset("synthetic", "copy", original.copy()),),
        Dataset("holdout", "holdout", holdout),
        TYPES,
    )
    orders = {c: attribute_order(c, TYPES[c], original[c]) for c in TYPES}
    attack = run_attack(release, "s", ["a"], "sum", orders, [np.random.default_rng(0)], records="holdout")
    # The copy pairs a = 1..4 with the 1st..4th smallest holdout values 10, 20, 30, 40.
    assert attack.disclosure.low[:, 0].tolist() == [10.0, 20.0, 30.0, 40.0]
    assert attack.disclosure.exactly_disclosed(1).tolist() == [True, False, False, True]
    assert attack.records == "holdout"
