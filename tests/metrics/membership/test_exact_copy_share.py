"""exact_copy_share's chart and baseline words (its numbers: the hand-computed cases in cases/exact_copy_share.yaml)."""

from __future__ import annotations

from tests.metrics.membership.tiny import HOLDOUT, SYNTHETIC, TRAINING, evaluate, release


def test_the_chart_sets_each_sets_copies_of_training_beside_its_copies_of_holdout():
    (chart,) = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC, TRAINING)).charts
    training, holdout = chart["series"]
    assert training["x"] == holdout["x"] == ["synthetic[0]", "synthetic[1]"]
    # Set 0 copies one training and one holdout record of 4; set 1 is the training set itself.
    assert (training["y"], holdout["y"]) == ([0.25, 1.0], [0.25, 0.0])


def test_without_a_baseline_the_holdouts_share_is_reported_but_not_subtracted():
    result = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC), baseline="none")
    assert (result.value, result.raw, result.baseline) == (0.25, None, 0.25)
    assert result.details.baseline.rule.endswith("the holdout's share is reported")
