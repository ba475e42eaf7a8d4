"""The whole attack (paper 000, secs. 3-4) against its definition, step by step."""

import numpy as np
import pandas as pd
import pytest

from policycheck.methods.linkage.attack import run_attack
from policycheck.methods.linkage.rank_linkage import link_brute_force, mid_ranks
from policycheck.methods.linkage.reverse_mapping import attribute_order, reverse_map_frame
from policycheck.release.model import ColumnType, Dataset, Release

TYPES = {"a": ColumnType.NUMERIC, "b": ColumnType.CATEGORICAL, "s": ColumnType.NUMERIC}


def random_frame(rng, n):
    return pd.DataFrame({
        "a": rng.integers(0, 6, n).astype(float),
        "b": rng.choice(["x", "y", "z"], n),
        "s": rng.integers(0, 9, n).astype(float),
    })


def ranks(original, frame, orders):
    """Mid-ranks in the original of the linkage attributes a and b of ``frame``."""
    return np.column_stack([mid_ranks(orders[c].codes(original[c]), orders[c].codes(frame[c])) for c in ("a", "b")])


@pytest.mark.parametrize("criterion", ["sum", "max", "min"])
def test_attack_equals_reverse_mapping_then_brute_force_linkage(criterion):
    rng = np.random.default_rng(11)
    for _ in range(20):
        original = random_frame(rng, 25)
        sets = [random_frame(rng, 25) for _ in range(2)]
        release = Release("r", Dataset("original", "original", original),
                          tuple(Dataset("synthetic", f"s{m}", f) for m, f in enumerate(sets)), None, TYPES)
        orders = {c: attribute_order(c, TYPES[c], original[c]) for c in TYPES}
        attack = run_attack(release, "s", ["a", "b"], criterion, orders, [np.random.default_rng(0)] * 2)
        for m, synthetic in enumerate(sets):
            z = reverse_map_frame(original, synthetic, orders)
            _, linked = link_brute_force(ranks(original, original, orders), ranks(original, z, orders), criterion)
            secret = z["s"].to_numpy()
            assert attack.disclosure.low[:, m].tolist() == [secret[l].min() for l in linked]
            assert attack.disclosure.high[:, m].tolist() == [secret[l].max() for l in linked]
            assert all(np.array_equal(attack.sets[m].linkage.candidates(i), linked[i]) for i in range(25))
