"""dp_epsilon_excess_membership: which claims the distance test refutes, and the game's test from a policy."""

from __future__ import annotations

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.metrics import registry
from policycheck.release.claims import Claim
from policycheck.release.model import SynthesizerInfo
from tests.metrics.dp.releases import evaluate, release
from tests.metrics.membership.game_release import checked


def test_manifest_claim_wins_over_the_param_and_value_is_the_worst_set():
    rel = release(SynthesizerInfo("a", epsilon=5.0), SynthesizerInfo("b"))
    result = evaluate("dp_epsilon_excess_membership", rel, claimed_epsilon=2.0)
    first, second = result.details.claims
    assert first.claimed_epsilon == 5.0 and first.excess == 0.0
    assert second.claimed_epsilon == 2.0
    assert result.value == second.excess > 0
    chart = result.charts[0]
    assert chart["series"][0]["y"] == [5.0, 2.0]


def test_membership_excess_without_any_claim_asks_for_claimed_epsilon():
    with pytest.raises(EvaluationError, match="declares no epsilon to test; give param claimed_epsilon"):
        evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("x")))


def test_membership_excess_refutes_only_the_sets_whose_claim_it_contradicts():
    # A copy of the 200 training records proves epsilon >= ln(l / (1 - l)) = 3.28, l = 0.025^(1/100) (100 of each
    # bounded): a claim of 5 stands, one of 2 falls.
    rel = release(SynthesizerInfo("a", epsilon=5.0), SynthesizerInfo("b", epsilon=2.0))
    result = evaluate("dp_epsilon_excess_membership", rel)
    assert result.refutes == (Claim.of_synthetic_set(1),)
    assert result.notes[0].startswith("Refuted: the measured lower bound on epsilon exceeds the claim for synthetic[1]")


def test_a_claim_the_test_does_not_contradict_is_not_refuted_never_verified():
    result = evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("a", epsilon=5.0)))
    assert result.value == 0 and result.refutes == ()
    assert result.notes[0].startswith("Not refuted by this test (a test cannot verify a DP claim)")
    assert registry.get_metric("dp_epsilon_excess_membership").pass_means == (
        "Not refuted by this test (a test cannot verify a DP claim)."
    )


def test_a_noise_free_indhist_claim_of_epsilon_one_is_refuted_by_the_game_and_the_budget_fails():
    rules = checked("indhist")
    claim = rules["claim"]["details"]["claims"][0]
    assert rules["claim"]["verdict"] == "fail" and claim["measured_epsilon_lower"] > 1.0
    # the refuted claim is the set's own, so the budget that counts it is unaccounted
    assert rules["budget"]["verdict"] == "fail"
    # the bound comes from a record holding a value nobody else in the population holds
    target = next(t for t in rules["game"]["details"]["targets"] if t["target"] == claim["target"])
    assert target["reason"] == "rare"


def test_the_game_says_how_large_an_epsilon_its_rounds_could_certify():
    # 100 test rounds, about 50 each way: even a perfect attack bounds epsilon at about 2.6 (membership-game guide)
    rules = checked("nonprivate")
    assert 2.3 < rules["claim"]["details"]["largest_certifiable_epsilon"] < 2.9
