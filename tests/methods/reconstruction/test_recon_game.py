import numpy as np
import pandas as pd
import pytest

from policycheck.execution.executor import SerialExecutor
from policycheck.methods.reconstruction.attacks import AttackConfig
from policycheck.methods.reconstruction.game import GameSetup, play_game, play_repetition
from policycheck.methods.reconstruction.lp_attack import ReconstructionError


def _original(n=200, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({c: rng.choice(list("abcdefgh"), n) for c in "pqrs"})
    frame["sex"] = rng.choice(["F", "M"], n)
    return frame


def _setup(synthesizer, attack="exact", **kw):
    return GameSetup(_original(), tuple("pqrs"), (), "sex", ("F", "M"), attack, AttackConfig(), synthesizer, **kw)


def test_a_bootstrap_synthesizer_with_many_records_leaks_every_target():
    # With m = 20n the target is copied into S with probability 1 - e^-20, and its
    # quasi-identifiers are unique: the exact-match attack reads its randomised bit.
    game = play_game(
        _setup("nonprivate", synthetic_size=4000), list(np.random.SeedSequence(0).spawn(40)), SerialExecutor()
    )
    assert game.truth.size == 40
    assert (game.truth == game.guess).all()
    assert set(np.unique(game.truth)) == {0, 1}


def test_independent_histograms_leave_the_attack_at_chance():
    game = play_game(
        _setup("indhist", targets_per_repetition=20), list(np.random.SeedSequence(1).spawn(20)), SerialExecutor()
    )
    accuracy = (game.truth == game.guess).mean()
    # 400 targets: a 99.9 % binomial band around 0.5 is about +-0.08.
    assert abs(accuracy - 0.5) < 0.09


def test_only_records_with_unique_quasi_identifiers_are_targets():
    original = pd.DataFrame({"q": ["a", "a", "b", "c", "c"], "sex": ["F", "M", "F", "M", "F"]})
    setup = GameSetup(
        original, ("q",), (), "sex", ("F", "M"), "exact", AttackConfig(), "nonprivate", synthetic_size=500
    )
    for seed in range(10):
        truth, guess, _ = play_repetition((setup, np.random.SeedSequence(seed)))
        # Only record 2 ("b") is unique: the attack sees its copies and their randomised bit.
        assert guess[0] == truth[0]


def test_no_unique_target_is_an_error():
    original = pd.DataFrame({"q": ["a", "a"], "sex": ["F", "M"]})
    setup = GameSetup(original, ("q",), (), "sex", ("F", "M"), "exact", AttackConfig(), "nonprivate")
    with pytest.raises(ReconstructionError, match="unique quasi-identifiers"):
        play_repetition((setup, np.random.SeedSequence(0)))


def test_same_seeds_give_the_same_game():
    seeds = list(np.random.SeedSequence(3).spawn(5))
    a = play_game(_setup("nonprivate", attack="lp", sample_size=100), seeds, SerialExecutor())
    b = play_game(_setup("nonprivate", attack="lp", sample_size=100), seeds, SerialExecutor())
    np.testing.assert_array_equal(a.truth, b.truth)
    np.testing.assert_array_equal(a.score, b.score)
    assert ((a.score >= 0) & (a.score <= 1)).all()
