import numpy as np
import pandas as pd
import pytest

from policycheck.methods.reconstruction import baselines
from policycheck.methods.reconstruction.attacks import AttackConfig, run_attack
from policycheck.methods.reconstruction.baselines import dcr_mode, exact_match_majority, ml_inference


def _frames():
    targets = pd.DataFrame({"a": ["x", "x", "y"], "b": ["p", "q", "q"]})
    synthetic = pd.DataFrame({"a": ["x", "x", "x", "y", "z"], "b": ["p", "p", "p", "p", "q"]})
    secret = np.array([1, 1, 0, 0, 0])
    return targets, synthetic, secret


def test_exact_match_takes_the_majority_secret_among_identical_quasi_identifiers():
    targets, synthetic, secret = _frames()
    scores, guess = exact_match_majority(targets, synthetic, ["a", "b"], secret, 2)
    # (x, p) occurs 3 times in S with secrets 1, 1, 0.
    np.testing.assert_allclose(scores[0], [1 / 3, 2 / 3])
    assert guess[0] == 1
    # (x, q) and (y, q) never occur: the synthetic shares, 3/5 of class 0.
    np.testing.assert_allclose(scores[1], [0.6, 0.4])
    assert guess[1] == 0 and guess[2] == 0


def test_dcr_collapses_duplicates_by_mode_before_measuring_distance():
    targets, synthetic, secret = _frames()
    scores, guess = dcr_mode(targets, synthetic, ["a", "b"], [], secret, 2, np.random.default_rng(0))
    # (x, p) collapses to secret 1 (2 against 1): candidate (x,p,1) is at distance 0,
    # candidate (x,p,0) at 1/3 (secret mismatch); score of class 1 = d0/(d0+d1) = 1.
    assert guess[0] == 1
    np.testing.assert_allclose(scores[0], [0.0, 1.0])
    # (y, q): nearest with secret 0 is (y,p,0) or (z,q,0) at 1/3; nearest with secret 1 is
    # (x,p,1) at 2/3, or a secret-0 record plus the mismatch at 2/3: guess 0, score 1/3.
    assert guess[2] == 0
    np.testing.assert_allclose(scores[2], [2 / 3, 1 / 3])


def test_dcr_breaks_mode_ties_in_the_order_the_synthetic_records_show_their_groups(monkeypatch):
    # Four groups, each with one record of each secret: every mode is a tie, drawn from the seed.
    synthetic = pd.DataFrame({"a": ["z", "x", "w", "y", "z", "x", "w", "y"]})
    secret = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    targets = pd.DataFrame({"a": ["z", "x", "w", "y"]})  # the groups in order of first appearance
    draws = np.random.default_rng(0).random((4, 2))
    expected = np.argmax(draws, axis=1)  # group i's collapsed secret; its target sits at distance 0 from it
    _, guess = dcr_mode(targets, synthetic, ["a"], [], secret, 2, np.random.default_rng(0))
    assert guess.tolist() == expected.tolist()
    # The same under a hash that orders the groups the other way (as another pandas version's may).
    keys = baselines.record_keys
    monkeypatch.setattr(baselines, "record_keys", lambda frame, columns: ~keys(frame, columns))
    _, again = dcr_mode(targets, synthetic, ["a"], [], secret, 2, np.random.default_rng(0))
    assert again.tolist() == expected.tolist()


def test_dcr_scales_numeric_differences_by_the_range_over_targets_and_synthetic_data():
    targets = pd.DataFrame({"age": [20.0, 60.0]})
    synthetic = pd.DataFrame({"age": [25.0, 100.0]})
    scores, guess = dcr_mode(targets, synthetic, ["age"], ["age"], np.array([0, 1]), 2, np.random.default_rng(0))
    assert guess.tolist() == [0, 0]
    # R = 100 - 20 = 80. Target 20: class 0 at |20-25|/80 = 0.0625, class 1 at
    # min(|20-100|/80, 0.0625 + 1) = 1 (both then / 2 columns).
    np.testing.assert_allclose(scores[0, 1], 0.0625 / (0.0625 + 1.0))


def test_ml_inference_learns_a_deterministic_rule_from_the_synthetic_data():
    rng = np.random.default_rng(0)
    synthetic = pd.DataFrame({"a": rng.choice(["u", "v"], 400), "n": rng.normal(size=400)})
    secret = (synthetic["a"] == "v").to_numpy().astype(int)
    targets = pd.DataFrame({"a": ["u", "v", "v"], "n": [0.0, 1.0, -1.0]})
    scores, guess = ml_inference(targets, synthetic, ["a", "n"], ["n"], secret, 2, np.random.default_rng(1), 20)
    assert guess.tolist() == [0, 1, 1]
    assert scores[1, 1] > 0.9


def test_ml_inference_with_one_synthetic_class_guesses_that_class():
    targets, synthetic, _ = _frames()
    scores, guess = ml_inference(targets, synthetic, ["a", "b"], [], np.zeros(5, int), 2, np.random.default_rng(0))
    assert guess.tolist() == [0, 0, 0]
    np.testing.assert_allclose(scores, [[1, 0]] * 3)


@pytest.mark.parametrize("attack", ["lp", "dcr", "ml", "exact"])
def test_every_attack_recovers_secrets_from_a_copy_of_the_original(attack):
    rng = np.random.default_rng(5)
    n = 300
    original = pd.DataFrame({c: rng.choice(list("abcdef"), n) for c in "pqrst"})
    original["s"] = rng.choice(["no", "yes"], n)
    synthetic = original.sample(n=10 * n, replace=True, random_state=1).reset_index(drop=True)
    out = run_attack(
        attack,
        original,
        synthetic,
        list("pqrst"),
        [],
        "s",
        ("no", "yes"),
        AttackConfig(n_estimators=30),
        np.random.default_rng(0),
    )
    accuracy = (np.array(out.classes, dtype=object)[out.guess] == original["s"].to_numpy()).mean()
    assert accuracy > 0.85
    np.testing.assert_allclose(out.scores.sum(axis=1), 1.0)


def test_a_categorical_secret_is_attacked_one_class_against_the_rest():
    rng = np.random.default_rng(2)
    n = 300
    original = pd.DataFrame({c: rng.choice(list("abcdef"), n) for c in "pqrs"})
    original["job"] = rng.choice(["clerk", "nurse", "pilot"], n)
    synthetic = original.sample(n=10 * n, replace=True, random_state=3).reset_index(drop=True)
    out = run_attack(
        "lp",
        original,
        synthetic,
        list("pqrs"),
        [],
        "job",
        ("clerk", "nurse", "pilot"),
        AttackConfig(query_orders=(3, 4)),
        np.random.default_rng(0),
    )
    assert len(out.info["solves"]) == 3
    accuracy = (np.array(out.classes, dtype=object)[out.guess] == original["job"].to_numpy()).mean()
    assert accuracy > 0.8
