"""Rates of the membership game on hand-made scores."""

import numpy as np
import pytest

from policycheck.core import stats
from policycheck.methods.membership_game.attacks import split_rounds
from policycheck.methods.membership_game.rates import best_threshold, target_rates, tpr_at_fpr


def test_the_threshold_maximises_tpr_minus_fpr():
    scores = np.array([0.9, 0.8, 0.3, 0.7, 0.2, 0.1])
    labels = np.array([1, 1, 1, 0, 0, 0])
    # t = 0.8: TPR 2/3, FPR 0 (J 2/3); t = 0.3: TPR 1, FPR 1/3 (J 2/3); a tie goes to the smaller threshold
    assert best_threshold(scores, labels) == 0.3


def test_tpr_at_fpr_reads_the_largest_tpr_within_each_level():
    fpr = np.array([0.0, 0.0, 0.04, 0.2, 1.0])
    tpr = np.array([0.0, 0.3, 0.5, 0.9, 1.0])
    assert tpr_at_fpr(fpr, tpr) == {0.01: 0.3, 0.05: 0.5, 0.1: 0.5}


def test_rates_use_the_training_threshold_on_the_test_rounds():
    labels = np.array([1, 0, 1, 0, 1, 0, 1, 0])
    scores = np.array([0.9, 0.1, 0.8, 0.2, 0.6, 0.7, 0.4, 0.3])
    train, test = np.arange(4), np.arange(4, 8)
    rates = target_rates("closest_distance", scores, labels, train, test, 0.95, np.random.default_rng(0))
    # training picks t = 0.8 (J = 1, the smallest such); test: in-rounds 0.6, 0.4 -> 0 flagged; out 0.7, 0.3 -> 0
    assert rates.threshold == 0.8 and rates.tpr == 0.0 and rates.fpr == 0.0 and rates.advantage == 0.0
    assert rates.advantage_interval == pytest.approx(stats.newcombe_difference(0, 2, 0, 2, 0.95))
    # test AUC: pairs (0.6 vs 0.7) lost, (0.6 vs 0.3) won, (0.4 vs 0.7) lost, (0.4 vs 0.3) won
    assert rates.auc == 0.5 and rates.training_advantage == 1.0


def test_the_rounds_split_in_two_seeded_halves():
    train, test = split_rounds(9, np.random.default_rng(3))
    assert len(train) == 4 and len(test) == 5 and sorted([*train, *test]) == list(range(9))
    again = split_rounds(9, np.random.default_rng(3))
    assert again[0].tolist() == train.tolist()
