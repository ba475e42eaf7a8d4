"""What the adversary reads from a synthetic set about a target, computed by hand."""

import numpy as np
import pandas as pd

from policycheck.methods.gower import fit_gower
from policycheck.methods.membership_game.features import (
    FeatureSpace,
    encode_synthetic,
    naive_summaries,
    target_features,
)
from policycheck.release.model import ColumnType

POPULATION = pd.DataFrame({"c": ["a", "b", "b", "b"], "x": [0.0, 10.0, 5.0, 5.0]})
TYPES = {"c": ColumnType.CATEGORICAL, "x": ColumnType.NUMERIC}


def space(target_rows):
    enc = fit_gower([POPULATION], TYPES, {}, ["c", "x"])
    encoded = enc.encode(POPULATION)
    rarest = np.array([enc.scan_order.index("c")] * len(target_rows))
    return FeatureSpace(enc, encoded[target_rows], rarest)


def test_features_of_a_target_against_a_synthetic_set():
    s = space([0])  # target (a, 0)
    synthetic = pd.DataFrame({"c": ["a", "b", "a"], "x": [0.0, 0.0, 10.0]})
    row = target_features(s, encode_synthetic(s, synthetic))[0]
    # Gower distances: (a,0) 0; (b,0) 1/2; (a,10) 1/2
    assert row[0] == 0.0  # closest
    assert row[1:5].tolist() == [1 / 3, 1 / 3, 1 / 3, 1 / 3]  # shares within 0, 0.02, 0.05, 0.1
    assert abs(row[5] - (1 + 2 * np.exp(-1)) / 3) < 1e-12  # mean exp(-p D), p = 2
    assert row[6] == 2 / 3  # share holding its rarest value, c = a
    # frequency of its own value per column, in scan order (c first): a twice, 0.0 twice
    assert row[7:].tolist() == [2 / 3, 2 / 3]


def test_a_category_the_population_lacks_matches_no_target_and_no_missing_value():
    s = space([0])
    synthetic = pd.DataFrame({"c": ["z", None], "x": [0.0, 0.0]})
    encoded = encode_synthetic(s, synthetic)
    assert encoded[:, 0].tolist() == [-2.0, -1.0]
    assert naive_summaries(s, encoded)[:3].tolist() == [0.0, 0.0, 1.0]  # shares of a, b, other


def test_naive_summaries_are_means_medians_variances_and_category_shares():
    s = space([0])
    synthetic = pd.DataFrame({"c": ["a", "b", "b", "b"], "x": [0.0, 10.0, 5.0, None]})
    out = naive_summaries(s, encode_synthetic(s, synthetic))
    # c: a 1/4, b 3/4, other 0; x scaled to [0, 1]: 0, 1, 0.5 and one missing
    assert out.tolist() == [0.25, 0.75, 0.0, 0.5, 0.5, np.var([0, 1, 0.5]), 0.25]


def test_the_compiled_distances_are_gowers_canonical_sums_bit_for_bit():
    # Column order matters for floats (a sum in another order differs in the last bit for about a
    # third of the records here): the compiled pass must add a column at a time in scan order, as
    # gower_sums does.
    from policycheck.methods.gower import CATEGORY, gower_sums
    from policycheck.methods.membership_game.features import _RADII_BOUNDS, _distances_and_matches

    rng = np.random.default_rng(7)
    n = 10_000  # several of the compiled pass's blocks of records, the last one partial
    population = pd.DataFrame(
        {
            "c": rng.choice(list("abcd"), n),
            "x": rng.normal(size=n),
            "y": np.where(rng.random(n) < 0.1, np.nan, rng.random(n) * 3),
            "z": rng.exponential(size=n),
        }
    )
    types = {"c": ColumnType.CATEGORICAL, "x": ColumnType.NUMERIC, "y": ColumnType.NUMERIC, "z": ColumnType.NUMERIC}
    enc = fit_gower([population], types, {}, list(types))
    encoded = enc.encode(population)
    s = FeatureSpace(enc, encoded[:5], np.zeros(5, dtype=np.int64))
    synthetic = encoded[5:]  # the population's own values: every numeric term below the cap of 1
    distance, closest, within, same = _distances_and_matches(
        s.targets, np.ascontiguousarray(synthetic.T), enc.kinds == CATEGORY, _RADII_BOUNDS
    )
    for t in range(5):
        d = gower_sums(np.repeat(encoded[t : t + 1], len(synthetic), 0), synthetic, enc.kinds) / enc.p
        assert np.array_equal(distance[t], d)
        assert closest[t] == d.min()
        assert within[t].tolist() == [int(np.sum(d <= bound)) for bound in _RADII_BOUNDS]
        # a value held, two missing values alike (missing is -1 in every column)
        assert same[t].tolist() == [int(np.sum(synthetic[:, k] == encoded[t, k])) for k in range(enc.p)]
