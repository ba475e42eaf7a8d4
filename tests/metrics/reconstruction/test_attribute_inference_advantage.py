"""attribute_inference_advantage through the registry (its known answers: cases/attribute_inference_advantage.yaml)."""

import pytest

from policycheck.methods.synthesizers import nonprivate
from tests.metrics.reconstruction.releases import evaluate, synthesized


def test_the_game_against_a_bootstrap_gives_full_advantage_and_an_roc():
    # A bootstrap of 8,000 rows from 400 records holds every target (absent with chance (1 - 1/400)^8000 = e^-20)
    # with its randomised bit: the exact-match attack reads it back every time.
    params = {
        "secret": "sex",
        "attack": "exact",
        "synthesizer": "nonprivate",
        "repetitions": 30,
        "synthetic_size": 8000,
    }
    result = evaluate(synthesized(nonprivate), "attribute_inference_advantage", params)
    assert result.value == pytest.approx(1.0)
    assert result.details.auc == pytest.approx(1.0)
    assert (result.details.targets, result.details.correct) == (30, 30)
    assert result.details.solver is None and result.details.game.synthesizer == "nonprivate"
    assert result.charts[0]["kind"] == "line"
