"""Inference success test: the paper's relative tolerance, not anonymeter 1.1's division by the guess."""

import numpy as np

from policycheck.methods.wp29.inference import correct_guesses


def anonymeter_1_1_regression_test(guess, secret, tolerance=0.05):
    """anonymeter 1.1's test, as written in evaluate_inference_guesses (peer-tools guide, sec. 6.8)."""
    return np.abs(guess - secret) / (guess + 1e-12) <= tolerance


def test_negative_guess_is_wrong_although_anonymeter_counts_it_right():
    guesses, secrets = np.array([-10.0]), np.array([50.0])
    assert anonymeter_1_1_regression_test(guesses, secrets)[0]  # -60 / -10 = -6 <= 0.05
    assert not correct_guesses(guesses, secrets, numeric=True, tolerance=0.05)[0]


def test_tolerance_is_relative_to_the_secret():
    # |104 - 100| = 4 <= 0.05 * 100; |106 - 100| = 6 > 5; |95.5 - 100| = 4.5 <= 5.
    guesses, secrets = np.array([104.0, 106.0, 95.5]), np.array([100.0, 100.0, 100.0])
    assert correct_guesses(guesses, secrets, numeric=True, tolerance=0.05).tolist() == [True, False, True]
    # anonymeter divides by the guess: 4.5 / 95.5 = 0.047 passes too, 6 / 106 = 0.0566 fails: same here.
    assert anonymeter_1_1_regression_test(guesses, secrets).tolist() == [True, False, True]


def test_categorical_guess_must_equal_and_missing_matches_missing():
    guesses = np.array(["a", "b", None, None], dtype=object)
    secrets = np.array(["a", "a", None, "a"], dtype=object)
    assert correct_guesses(guesses, secrets, numeric=False, tolerance=0.05).tolist() == [True, False, True, False]
