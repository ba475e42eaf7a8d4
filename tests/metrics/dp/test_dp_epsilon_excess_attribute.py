"""dp_epsilon_excess_attribute: the attribute inference game's guesses bound epsilon against the claim."""

from __future__ import annotations

import math

import numpy as np
import pytest

from policycheck.methods.reconstruction.game import AttributeInferenceGame
from policycheck.metrics import registry
from policycheck.metrics.dp.claims import INTERVAL_OF
from policycheck.metrics.reconstruction import game_need
from policycheck.release.model import SynthesizerInfo
from tests.metrics.dp.releases import evaluate, release


def perfect_game(**params):
    """50 targets, every bit guessed right, and the rule's result on it."""
    rel = release(SynthesizerInfo("x"))
    spec = registry.get_metric("dp_epsilon_excess_attribute")
    truth = np.array([0, 1] * 25)
    game = AttributeInferenceGame(truth, truth.copy(), truth.astype(float), {"attack": "lp"})
    return evaluate("dp_epsilon_excess_attribute", rel, needs={game_need(spec.params(**params)): game}, **params)


def test_attribute_game_guesses_bound_epsilon_against_the_claim():
    result = perfect_game(secret="c", synthesizer="nonprivate", claimed_epsilon=0.5)
    lower = 0.05 ** (1 / 50)  # 50 of 50 correct, one-sided 95%
    assert result.value == pytest.approx(math.log(lower / (1 - lower)) - 0.5, rel=1e-9)
    assert result.details.claims[0].set == "synthesizer 'nonprivate'"


def test_attribute_game_on_a_builtin_synthesizer_refutes_no_claim_of_the_release():
    result = perfect_game(secret="c", synthesizer="nonprivate", claimed_epsilon=0.5)
    assert result.value > 0 and result.refutes == ()


def test_the_attribute_excess_interval_says_it_is_of_this_attack_not_of_the_mechanism():
    # 40 of 50 bits guessed right: a finite upper end on epsilon, so the rule has an interval
    rel = release(SynthesizerInfo("x"))
    params = {"secret": "c", "synthesizer": "nonprivate", "claimed_epsilon": 0.5}
    spec = registry.get_metric("dp_epsilon_excess_attribute")
    truth = np.array([0, 1] * 25)
    guess = np.where(np.arange(50) < 40, truth, 1 - truth)
    game = AttributeInferenceGame(truth, guess, guess.astype(float), {"attack": "lp"})
    result = evaluate("dp_epsilon_excess_attribute", rel, needs={game_need(spec.params(**params)): game}, **params)
    assert result.interval is not None and result.interval_of == INTERVAL_OF
