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


def test_an_interval_end_taken_from_another_set_is_named_with_that_sets_own_interval():
    # Set 0 copies one training and one holdout record of 4 (value 0); set 1, rows 0, 1 and 3 of set 0,
    # copies one training record of 3 (value 1/3): the worse, but with fewer records its interval reaches
    # less high than set 0's.
    result = evaluate("exact_copy_share", release(HOLDOUT, SYNTHETIC, SYNTHETIC.iloc[[0, 1, 3]]))
    first, second = result.details.per_set
    assert (first.value, second.value) == (0.0, 1 / 3) and result.value == 1 / 3
    assert first.interval[1] > second.interval[1]
    assert result.interval == (second.interval[0], first.interval[1])
    lo, hi = first.interval
    own_lo, own_hi = second.interval
    assert result.notes[-1] == (
        "The interval holds for the larger of the 2 synthetic sets' values, whichever it is: its upper end "
        f"{hi:.4g} is the 'synthetic[0]' synthetic set's (estimate 0, interval [{lo:.4g}, {hi:.4g}]); the "
        f"estimate shown is the 'synthetic[1]' synthetic set's (its own interval [{own_lo:.4g}, {own_hi:.4g}])."
    )
