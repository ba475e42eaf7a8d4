"""dp_epsilon_excess_membership: which claims the distance test refutes, and the game's test from a policy."""

from __future__ import annotations

import pytest

from policycheck.core.errors import EvaluationError
from policycheck.metrics import registry
from policycheck.metrics.dp.claims import INTERVAL_OF
from policycheck.release.claims import Claim
from policycheck.release.model import SynthesizerInfo
from tests.metrics.dp.releases import TRAINING, evaluate, release
from tests.metrics.membership.game_release import checked

COPIES = TRAINING.iloc[::5].reset_index(drop=True)


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


def test_the_excess_interval_says_it_is_of_this_attack_not_of_the_mechanism():
    # a copy of every fifth training record: the test measures epsilon in [0.65, 4.8], so a claim of 2 is not
    # refuted (value 0), and the interval's upper end 2.8 is what this test could show, not the mechanism's excess
    result = evaluate("dp_epsilon_excess_membership", release(SynthesizerInfo("a", epsilon=2.0), synthetic=COPIES))
    assert result.value == 0 and result.interval == pytest.approx((0.0, 2.825), abs=1e-3)
    assert result.interval_of == INTERVAL_OF
    assert result.interval_of_short == "this attack's excess over the claim"


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


def _game(distances_by_target, coins, train, test):
    """A played game of two or more targets, each scored by the closest-distance attack ("higher means in")."""
    import numpy as np

    from policycheck.methods.membership_game.attacks import ATTACKS
    from policycheck.methods.membership_game.game import MembershipGame

    distance = np.column_stack(distances_by_target)
    scores = dict.fromkeys(ATTACKS, -distance)
    targets = distance.shape[1]
    return MembershipGame(
        coins=np.column_stack([coins] * targets),
        scores=scores,
        train=np.asarray(train),
        test=np.asarray(test),
        chosen=("closest_distance",) * targets,
        training_auc={},
        targets=[],
        params={},
        seconds={},
    )


def test_the_audit_bounds_the_target_whose_test_holds_from_one_half_of_the_training_rounds_to_the_other():
    import numpy as np

    from policycheck.methods.dp.lower_bound import selected_bound, tpr_fpr_bound
    from policycheck.metrics.dp.dp_epsilon_excess_membership import game_bound, held_out_score

    # 200 rounds, in, in, out, out, ...; rounds 0-99 train (halves: even and odd positions, 25 in and 25 out
    # each), 100-199 test (50 in, 50 out).
    coins = np.tile([1, 1, 0, 0], 50)
    train, test = np.arange(100), np.arange(100, 200)
    inside = coins == 1
    # Target 0 separates perfectly on each training half, but at different distances: in 0 / out 1 on the
    # first half, in 0.5 / out 0.6 on the second. On all training rounds together "in when <= 0.5" is
    # perfect, so its in-sample bound is the largest; chosen on the first half, "in when <= 0" finds no
    # member on the second, so its held-out score is 0. On its test rounds in and out look alike.
    first_half = np.isin(np.arange(200), train[0::2])
    lucky = np.where(first_half, np.where(inside, 0.0, 1.0), np.where(inside, 0.5, 0.6))
    lucky[test] = 0.3
    # Target 1: in at 0, out at 1, but for one out-round at 0 in each training half (rounds 2 and 3).
    steady = np.where(inside, 0.0, 1.0)
    steady[[2, 3]] = 0.0
    game = _game([lucky, steady], coins, train, test)

    def in_sample(d):
        members, others = d[train][inside[train]], d[train][~inside[train]]
        return selected_bound(members, others, members, others).epsilon_lower

    assert in_sample(lucky) > in_sample(steady)  # what chose the target before
    assert held_out_score(lucky, inside, train, 0.95, 0.0) == 0.0
    assert held_out_score(steady, inside, train, 0.95, 0.0) > 0.0
    bound, target, _ = game_bound(game, 0.95, 0.0)
    assert target == 1
    # Its test rounds: every one of 50 in-rounds at 0, every one of 50 out-rounds at 1.
    assert bound.epsilon_lower == pytest.approx(tpr_fpr_bound(50, 50, 0, 50, 0.95, 0.0).epsilon_lower)
