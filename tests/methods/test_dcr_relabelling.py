"""The DCR share under random relabelling of the real records (policycheck.methods.dcr_relabelling).

The hand-enumerated cases: a pool of 4 real records, 2 of them training; the 6 equally likely
labellings give the null distribution exactly.
"""

from __future__ import annotations

import numpy as np
import pytest

from policycheck.methods.dcr_relabelling import (
    nearest_sets,
    observed_counts,
    relabelled_shares,
    share_given_counts,
)
from policycheck.methods.dcr_share import dcr_share_counts
from policycheck.methods.gower import CATEGORY, SCALED, gower_sums

NUMERIC = np.array([SCALED])
# Training r0 = 0, r1 = 0.5; holdout r2 = 0.25, r3 = 1 (binary fractions: distances are exact).
POOL = np.array([[0.0], [0.5], [0.25], [1.0]])
# Nearest sets: {r0}, {r1}, {r3}, and {r0, r2} for 0.125, equally near both (a tie as labelled).
SYNTHETIC = np.array([[0.0], [0.5], [1.0], [0.125]])


def _frequencies(shares: np.ndarray) -> dict[float, float]:
    values, counts = np.unique(np.round(shares, 9), return_counts=True)
    return dict(zip(values.tolist(), (counts / shares.size).tolist(), strict=True))


def test_each_synthetic_record_keeps_every_real_record_at_its_smallest_distance():
    sets = nearest_sets(SYNTHETIC, POOL[:2], POOL[2:])
    assert sets is not None
    nearest = [sets.profiles[a:b].tolist() for a, b in zip(sets.indptr[:-1], sets.indptr[1:], strict=True)]
    # Distinct synthetic rows come in sorted order: 0, 0.125, 0.5, 1; distinct pool rows likewise 0, 0.25, 0.5, 1.
    assert nearest == [[0], [0, 1], [2], [3]]
    assert sets.weights.tolist() == [1, 1, 1, 1]
    assert sets.members.tolist() == [1, 1, 1, 1]


def test_relabelled_shares_follow_the_hand_enumerated_null():
    # Training {r0,r1}: 2/3 (r0 and r2 split: a tie); {r0,r2}: 2/4; {r0,r3}: 2/3; {r1,r2}: 1/3;
    # {r1,r3}: 2/4; {r2,r3}: 1/3. Each share on 2 of the 6 labellings: mean 1/2, variance 1/54.
    sets = nearest_sets(SYNTHETIC, POOL[:2], POOL[2:])
    shares = relabelled_shares(sets, 2, np.random.default_rng(0), rounds=20_000)
    freq = _frequencies(shares)
    assert list(freq) == pytest.approx([1 / 3, 1 / 2, 2 / 3])
    assert list(freq.values()) == pytest.approx([1 / 3, 1 / 3, 1 / 3], abs=0.015)
    assert shares.var() == pytest.approx(1 / 54, rel=0.05)


def test_relabelling_people_moves_each_persons_records_together():
    # r0 and r1 are one person (training), r2 and r3 another (holdout): a relabelling puts one person in
    # training, {r0,r1} (share 2/3) or {r2,r3} (1/3), each on half the draws: variance 1/36, not 1/54.
    sets = nearest_sets(SYNTHETIC, POOL[:2], POOL[2:])
    shares = relabelled_shares(sets, 2, np.random.default_rng(0), rounds=20_000, people=np.array([7, 7, 9, 9]))
    freq = _frequencies(shares)
    assert list(freq) == pytest.approx([1 / 3, 2 / 3])
    assert list(freq.values()) == pytest.approx([1 / 2, 1 / 2], abs=0.015)
    assert shares.var() == pytest.approx(1 / 36, rel=0.05)


def test_the_release_labels_give_the_share_the_distances_give():
    sets = nearest_sets(SYNTHETIC, POOL[:2], POOL[2:])
    observed = share_given_counts(sets, observed_counts(sets, 2))
    # To training (r0, r1) / holdout (r2, r3): 0/0.25, 0/0.25, 0.5/0, 0.125/0.125: 2 closer, 1 farther, 1 tie.
    assert observed.tolist() == [2 / 3]


def test_identical_real_records_form_one_profile_counted_by_its_members():
    pool = np.array([[0.0], [1.0], [0.0], [1.0]])  # a, b in training; a, b in holdout
    sets = nearest_sets(np.array([[0.0]]), pool[:2], pool[2:])
    assert sets.members.tolist() == [2, 2]
    # Closer to training only when both a's are training (1 labelling in 6), to holdout when neither is.
    freq = _frequencies(relabelled_shares(sets, 2, np.random.default_rng(1), rounds=20_000))
    assert list(freq) == [0.0, 0.5, 1.0]
    assert list(freq.values()) == pytest.approx([1 / 6, 4 / 6, 1 / 6], abs=0.015)


def test_coarse_records_relabelled_as_labelled_give_the_counted_share():
    rng = np.random.default_rng(3)
    pool = rng.integers(0, 3, size=(300, 3)).astype(float)
    synthetic = rng.integers(0, 3, size=(200, 3)).astype(float)
    kinds = np.array([CATEGORY] * 3)
    to_training = np.array([gower_sums(np.repeat(s[None], 150, 0), pool[:150], kinds).min() for s in synthetic])
    to_holdout = np.array([gower_sums(np.repeat(s[None], 150, 0), pool[150:], kinds).min() for s in synthetic])
    sets = nearest_sets(synthetic, pool[:150], pool[150:])
    observed = share_given_counts(sets, observed_counts(sets, 150))
    assert observed.tolist() == [dcr_share_counts(to_training, to_holdout).share]


def test_nearest_sets_are_not_built_past_the_pair_bound():
    assert nearest_sets(SYNTHETIC, POOL[:2], POOL[2:], max_terms=15) is None
    assert nearest_sets(SYNTHETIC, POOL[:2], POOL[2:], max_terms=16) is not None


@pytest.mark.parametrize(
    ("max_terms", "sorted_rows"), [(10**7, [10_000, 5_000]), (10**8, [10_000, 5_000, 40_000, 20_000])]
)
def test_fine_data_past_the_pair_bound_is_refused_on_samples_the_smallest_that_shows_it(
    monkeypatch, max_terms, sorted_rows
):
    # 20,000 distinct values in each set. The first samples (5,000 of each set) bound the pairs below by
    # 10,000 x 5,000 = 5e7, the second (every row) by 40,000 x 20,000 = 8e8: a bound of 1e7 is passed
    # on the first, 1e8 on the second; no set is sorted whole beyond the samples.
    from policycheck.methods import dcr_relabelling

    sorted_sizes = []

    def distinct_rows(rows):
        sorted_sizes.append(len(rows))
        return real_distinct_rows(rows)

    real_distinct_rows = dcr_relabelling.distinct_rows
    monkeypatch.setattr(dcr_relabelling, "distinct_rows", distinct_rows)
    values = np.arange(60_000, dtype=float)[:, None] / 60_000
    assert nearest_sets(values[:20_000], values[20_000:40_000], values[40_000:], max_terms=max_terms) is None
    assert sorted_sizes == sorted_rows


def test_nearest_sets_are_not_built_past_the_bound_on_their_size():
    # Five (row, profile) pairs at the smallest distances: 0 -> r0, 0.125 -> r0 and r2, 0.5 -> r1, 1 -> r3.
    assert nearest_sets(SYNTHETIC, POOL[:2], POOL[2:], max_nearest=4) is None
    assert nearest_sets(SYNTHETIC, POOL[:2], POOL[2:], max_nearest=5).indptr[-1] == 5


def test_the_compiled_sums_find_the_sets_the_canonical_gower_sums_find():
    rng = np.random.default_rng(7)
    kinds = np.array([CATEGORY, CATEGORY, SCALED, SCALED])

    def rows(n):
        x = np.column_stack([rng.integers(0, 3, n), rng.integers(0, 2, n), rng.integers(0, 4, n) / 3, rng.random(n)])
        x[rng.random(n) < 0.1, 2] = -1.0  # missing numeric values
        x[:, 3] = np.round(x[:, 3], 1)
        return x

    pool, synthetic = rows(400), rows(150)
    sets = nearest_sets(synthetic, pool[:200], pool[200:])
    from policycheck.methods.distinct_rows import distinct_rows

    rows_syn, _ = distinct_rows(synthetic)
    rows_pool, _ = distinct_rows(pool)
    for u, row in enumerate(rows_syn):
        sums = gower_sums(np.repeat(row[None], len(rows_pool), 0), rows_pool, kinds)
        expected = np.flatnonzero(sums == sums.min())
        assert sets.profiles[sets.indptr[u] : sets.indptr[u + 1]].tolist() == expected.tolist()
