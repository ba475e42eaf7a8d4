"""Measured lower bounds on epsilon with Clopper-Pearson intervals."""

from __future__ import annotations

import math

import numpy as np
import pytest

from policycheck.methods.dp import lower_bound as lb


def test_perfect_test_bound_uses_closed_form_clopper_pearson_ends():
    # All 100 positives flagged, no negative flagged: TPR_lower = 0.025^(1/100),
    # FPR_upper = 1 - 0.025^(1/100) (each one-sided at 2.5%).
    b = lb.tpr_fpr_bound(100, 100, 0, 100, confidence=0.95)
    lower = 0.025 ** (1 / 100)
    assert b.evidence["tpr_interval"][0] == pytest.approx(lower, rel=1e-9)
    assert b.epsilon_lower == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)
    assert b.epsilon_lower == pytest.approx(3.2813, abs=1e-4)
    assert math.isinf(b.epsilon_estimate)


def test_delta_is_subtracted_from_the_true_positive_rate():
    b = lb.tpr_fpr_bound(100, 100, 0, 100, confidence=0.95, delta=0.5)
    lower = 0.025 ** (1 / 100)
    assert b.epsilon_lower == pytest.approx(math.log((lower - 0.5) / (1 - lower)), rel=1e-9)


def test_a_test_no_better_than_chance_bounds_epsilon_at_zero():
    b = lb.tpr_fpr_bound(50, 100, 50, 100)
    assert b.epsilon_lower == 0.0
    assert b.epsilon_estimate == 0.0


def test_one_bit_game_bound_from_accuracy():
    # 20 of 20 correct: one-sided 95% lower bound 0.05^(1/20).
    b = lb.one_bit_bound(20, 20, confidence=0.95)
    lower = 0.05 ** (1 / 20)
    assert b.evidence["accuracy_interval"][0] == pytest.approx(lower, rel=1e-9)
    assert b.epsilon_lower == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)


def test_one_bit_game_at_chance_accuracy_shows_nothing():
    assert lb.one_bit_bound(50, 100).epsilon_lower == 0.0


def test_membership_bound_finds_copies_and_bounds_on_the_other_half():
    # Members: 60% exact copies (distance 0); non-members never at distance 0.
    rng = np.random.default_rng(0)
    members = np.where(np.arange(1000) < 600, 0.0, rng.uniform(0.1, 1, 1000))
    nonmembers = rng.uniform(0.1, 1, 1000)
    b = lb.membership_bound(members, nonmembers, np.random.default_rng(1))
    test = b.evidence["test"]
    assert test["direction"] == "close" and test["threshold"] == 0.0
    assert test["evaluation_records"] == 1000
    # On the evaluation half: about 300 of 500 members flagged, no non-member.
    assert b.evidence["false_positives"] == 0
    tpr_lo = b.evidence["tpr_interval"][0]
    fpr_hi = 1 - 0.025 ** (1 / 500)
    assert b.epsilon_lower == pytest.approx(math.log(tpr_lo / fpr_hi), rel=1e-9)
    assert b.epsilon_lower > 4


def test_membership_bound_on_identical_distributions_is_near_zero():
    rng = np.random.default_rng(3)
    b = lb.membership_bound(rng.uniform(size=2000), rng.uniform(size=2000), np.random.default_rng(4))
    assert b.epsilon_lower < 0.1


def test_membership_bound_is_seeded():
    rng = np.random.default_rng(5)
    m, n = rng.uniform(size=400), rng.uniform(size=400) + 0.1
    first = lb.membership_bound(m, n, np.random.default_rng(9))
    second = lb.membership_bound(m, n, np.random.default_rng(9))
    assert first == second


def test_attribute_game_one_bit_counts_correct_guesses():
    truth = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 0])
    guess = np.array([1, 0, 1, 0, 1, 0, 1, 0, 1, 1])
    b = lb.attribute_game_bound(truth, guess, 0.95)
    assert b.evidence["correct"] == 9 and b.evidence["trials"] == 10


def test_attribute_game_tpr_fpr_takes_the_better_direction_at_half_the_error():
    truth = np.array([1] * 50 + [0] * 50)
    guess = np.array([1] * 50 + [0] * 50)
    b = lb.attribute_game_bound(truth, guess, 0.95, bound="tpr_fpr")
    # Each direction at 97.5% joint confidence: one-sided 1.25% per rate.
    lower = 0.0125 ** (1 / 50)
    assert b.epsilon_lower == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)


def test_a_perfect_test_on_ten_and_ten_trials_certifies_the_closed_form_epsilon():
    from policycheck.methods.dp.lower_bound import certifiable_epsilon

    # all 10 in flagged, none of 10 out: one-sided 97.5 % Clopper-Pearson ends are 0.025^(1/10) and 1 - 0.025^(1/10)
    lower = 0.025**0.1
    assert certifiable_epsilon(10, 10) == pytest.approx(math.log(lower / (1 - lower)), rel=1e-9)
    # 50 and 50: 2.57, the figure of the membership-game guide (about 2.6)
    assert certifiable_epsilon(50, 50) == pytest.approx(math.log(0.025**0.02 / (1 - 0.025**0.02)), rel=1e-9)
    assert round(certifiable_epsilon(50, 50), 2) == 2.57


def test_a_selected_bound_takes_its_threshold_from_the_selection_trials_only():
    from policycheck.methods.dp.lower_bound import selected_bound, tpr_fpr_bound

    # selection: members at 0, 0, 0, 1, non-members at 1: "member when distance <= 0" is best there
    b = selected_bound([0, 0, 0, 1], [1, 1, 1, 1], [0, 0, 1, 1], [1, 1, 1, 0], 0.95)
    assert b.evidence["test"]["rule"] == "member when distance <= 0"
    # evaluation: 2 of 4 members and 1 of 4 non-members at distance <= 0
    assert (b.evidence["true_positives"], b.evidence["false_positives"]) == (2, 1)
    assert b.epsilon_lower == tpr_fpr_bound(2, 4, 1, 4, 0.95).epsilon_lower
