"""The counting bootstrap of the MI risk gives the sort-based bootstrap's numbers, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

from policycheck.methods.membership_bootstrap import bootstrap_counts, order_statistic_ranks
from policycheck.methods.membership_test import membership_inference_test


def sorted_resample_counts(members, non_members, levels, rng, resamples):
    """The bootstrap as it was before counting (policycheck 1514b28..dbcddc8): every resample
    concatenated, its thresholds from ``np.quantile`` and its guesses from two sorts."""
    guessed, hits = [], []
    for _ in range(resamples):
        m = members[rng.integers(0, members.size, members.size)]
        h = non_members[rng.integers(0, non_members.size, non_members.size)]
        t = np.quantile(np.concatenate([m, h]), np.asarray(levels, dtype=float), method="inverted_cdf")
        tp = np.searchsorted(np.sort(m), t, side="right")
        guessed.append(tp + np.searchsorted(np.sort(h), t, side="right"))
        hits.append(tp)
    return np.array(guessed), np.array(hits)


def sorted_resample_interval(members, non_members, levels, rng, resamples, confidence):
    guessed, hits = sorted_resample_counts(members, non_members, levels, rng, resamples)
    boot = np.array([(float(np.mean(h / g)) - 0.5) * 2.0 for g, h in zip(guessed, hits, strict=False)])
    alpha = 1.0 - confidence
    return float(np.quantile(boot, alpha / 2)), float(np.quantile(boot, 1 - alpha / 2))


def dcrs(kind: str, n_m: int, n_h: int, seed: int):
    """DCRs with the shapes a release gives: continuous, coarse (many ties), copies at 0."""
    rng = np.random.default_rng(seed)
    if kind == "continuous":
        return rng.random(n_m) * 0.9, rng.random(n_h)
    if kind == "coarse":  # Gower distances of categorical data take few values
        return rng.integers(0, 5, n_m) / 12, rng.integers(0, 6, n_h) / 12
    copies = rng.random(n_m) < 0.4  # a leaky release: many members at DCR 0
    return np.where(copies, 0.0, rng.random(n_m)), np.where(rng.random(n_h) < 0.02, 0.0, rng.random(n_h))


@pytest.mark.parametrize("kind", ["continuous", "coarse", "copies"])
@pytest.mark.parametrize("sizes", [(1, 1), (7, 7), (500, 500), (999, 1003)])
@pytest.mark.parametrize("levels", [[0.5, 0.25, 0.2, 0.01], [0.0, 1.0, 0.5], [1 / 3, 0.999, 0.3]])
def test_counts_equal_the_sorted_resamples(kind, sizes, levels):
    members, non_members = dcrs(kind, *sizes, seed=sum(sizes))
    expected = sorted_resample_counts(members, non_members, levels, np.random.default_rng(3), 40)
    got = bootstrap_counts(members, non_members, levels, np.random.default_rng(3), 40)
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])


@pytest.mark.parametrize("kind", ["continuous", "coarse", "copies"])
def test_interval_equals_the_sorted_bootstrap_bit_for_bit(kind):
    members, non_members = dcrs(kind, 3000, 3000, seed=11)
    levels = [0.5, 0.25, 0.2, 0.01]
    test = membership_inference_test(
        members, non_members, levels, np.random.default_rng(20261121), confidence=0.975, resamples=200
    )
    expected = sorted_resample_interval(members, non_members, levels, np.random.default_rng(20261121), 200, 0.975)
    assert test.risk_interval == expected


def test_order_statistic_ranks_are_numpys_inverted_cdf_positions():
    # 10 records: level 0.25 -> ceil(2.5) - 1 = 2; 0.5 -> 5 - 1 = 4; 0 -> 0; 1 -> 9; 0.01 -> 0.
    assert order_statistic_ranks(10, [0.25, 0.5, 0.0, 1.0, 0.01]).tolist() == [2, 4, 0, 9, 0]


def test_a_resample_of_copies_counts_every_record_tied_at_the_threshold():
    # Members all at 0, non-members all at 1: the 0.25 quantile of any resample of 2 + 2 records is 0
    # and guesses exactly the two drawn members; the 1.0 quantile guesses all four.
    guessed, hits = bootstrap_counts(np.zeros(2), np.ones(2), [0.25, 1.0], np.random.default_rng(0), 5)
    assert guessed.tolist() == [[2, 4]] * 5 and hits.tolist() == [[2, 2]] * 5


def test_counting_on_a_second_thread_gives_the_same_counts():
    members, non_members = dcrs("coarse", 12_000, 12_000, seed=4)
    levels = [0.5, 0.25, 0.2, 0.01]
    expected = sorted_resample_counts(members, non_members, levels, np.random.default_rng(8), 12)
    got = bootstrap_counts(members, non_members, levels, np.random.default_rng(8), 12, threads=2)
    assert np.array_equal(got[0], expected[0]) and np.array_equal(got[1], expected[1])


class AlwaysFirst:
    """A generator that draws row 0 every time: one record drawn 300 times per resample."""

    def integers(self, low, high, size, dtype=np.int64):
        return np.zeros(size, dtype=dtype)


def test_a_record_drawn_more_than_255_times_is_counted_in_full():
    members, non_members = np.linspace(0, 1, 300), np.linspace(0.5, 1.5, 300)
    # Every draw is the smallest member (0) or the smallest non-member (0.5): 300 of each.
    guessed, hits = bootstrap_counts(members, non_members, [0.25, 0.75], AlwaysFirst(), 2)
    assert guessed.tolist() == [[300, 600]] * 2 and hits.tolist() == [[300, 300]] * 2
    expected = sorted_resample_counts(members, non_members, [0.25, 0.75], AlwaysFirst(), 2)
    assert np.array_equal(guessed, expected[0]) and np.array_equal(hits, expected[1])
