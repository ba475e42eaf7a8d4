"""The compiled all-pairs Gower sums are the canonical formula's, pair by pair, to the bit."""

from __future__ import annotations

import numpy as np

from policycheck.methods.gower import CATEGORY, MISSING, gower_sums
from policycheck.methods.pairwise_gower_sums import pairwise_gower_sums

KINDS = np.array([0, CATEGORY, 0, CATEGORY, 0])


def encoded(rows: int, seed: int) -> np.ndarray:
    """Scaled values in [0, 1] with missing ones, and categorical codes with missing as a code of its own."""
    rng = np.random.default_rng(seed)
    out = rng.random((rows, len(KINDS)))
    out[:, KINDS == CATEGORY] = rng.integers(0, 4, (rows, int((KINDS == CATEGORY).sum())))
    numeric = np.flatnonzero(KINDS != CATEGORY)
    out[:, numeric] = np.where(rng.random((rows, numeric.size)) < 0.15, MISSING, out[:, numeric])
    return out


def test_every_pairs_sum_is_the_canonical_formulas():
    queries, points = encoded(40, seed=1), encoded(70, seed=2)
    sums = pairwise_gower_sums(queries, np.ascontiguousarray(points.T), KINDS == CATEGORY)
    for i, query in enumerate(queries):
        expected = gower_sums(np.repeat(query[None, :], len(points), axis=0), points, KINDS)
        assert np.array_equal(sums[i], expected)


def test_a_missing_value_against_a_present_one_is_a_full_mismatch_and_two_missing_match():
    query = np.array([[MISSING, 2.0, 0.25, 0.0, MISSING]])
    points = np.array([[0.5, 2.0, 0.75, 1.0, MISSING]])
    sums = pairwise_gower_sums(query, np.ascontiguousarray(points.T), KINDS == CATEGORY)
    assert sums.tolist() == [[1.0 + 0.0 + 0.5 + 1.0 + 0.0]]
