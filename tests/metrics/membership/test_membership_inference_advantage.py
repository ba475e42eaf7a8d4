"""membership_inference_advantage as a user runs it: from a policy, on the API (see game_release.py)."""

from __future__ import annotations

from policycheck.metrics.membership.membership_inference_advantage import AdvantageDetails, GameTarget
from tests.metrics.membership.game_release import checked


def test_indhist_dp_at_the_epsilon_it_declares_is_not_refuted():
    rules = checked("indhist_dp")
    assert rules["claim"]["verdict"] == "pass" and rules["claim"]["value"] == 0.0
    assert rules["game"]["verdict"] == "pass" and rules["budget"]["verdict"] == "pass"
    assert rules["game"]["details"]["game"]["epsilon_run"] == 1.0


def test_a_bootstrap_fails_the_game_and_the_words_name_the_record():
    rules = checked("nonprivate")
    game = rules["game"]
    assert game["verdict"] == "fail" and game["interval"][0] > 0.2
    worst = game["details"]["worst_target"]
    assert f"Judged target: {worst}" in game["notes"][0] and "was in the training data" in game["notes"][0]
    # Its interval is past a blind guess: the words say what the attacker learns.
    assert "The attacker learns that this person's data was used" in game["notes"][0]


def test_the_words_claim_nothing_learnt_where_the_interval_holds_a_blind_guess():
    rules = checked("indhist_dp")
    note = rules["game"]["notes"][0]
    assert "the most exposed on the game's training rounds and measured on its test rounds" in note
    assert "The attacker learns" not in note


def test_each_target_keeps_its_tpr_at_every_low_fpr_under_the_report_key():
    target = checked("nonprivate")["game"]["details"]["targets"][0]
    assert [k for k in target if k.startswith("tpr_at_fpr_")] == [
        "tpr_at_fpr_0.01",
        "tpr_at_fpr_0.05",
        "tpr_at_fpr_0.1",
    ]
    assert GameTarget.model_validate(target).to_report() == target


def test_the_details_label_every_field_for_the_report():
    labels = AdvantageDetails.field_labels()
    assert labels["worst_target"]["label"] == "Worst target" and labels["seconds"]["unit"] == "seconds"
