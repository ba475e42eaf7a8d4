"""The combinators: the worst of several alternatives at the Bonferroni level, and an attack against its control."""

from types import SimpleNamespace

import pytest

from policycheck.metrics.combinators import (
    Estimate,
    against_control,
    borrowed_ends_note,
    printed_level,
    worst_interval_noted,
    worst_of,
    worst_of_sets,
)


def _ctx(*names):
    """Just what worst_of_sets reads: the release's synthetic sets, by name."""
    return SimpleNamespace(release=SimpleNamespace(synthetic=tuple(SimpleNamespace(name=n) for n in names)))


def _scores(**by_name):
    """A measure that gives each set its score from ``by_name``, with the level it was measured at."""
    return lambda i, dataset, level: {"synthetic": dataset.name, "i": i, "score": by_name[dataset.name], "level": level}


def test_each_set_is_measured_at_the_bonferroni_level():
    sets = worst_of_sets(_ctx("a", "b", "c", "d"), 0.95, _scores(a=1, b=2, c=3, d=4), lambda m: m["score"])
    assert sets.level == pytest.approx(0.9875)  # 1 - 0.05 / 4
    assert [m["level"] for m in sets.per_set] == [sets.level] * 4


def test_the_highest_risk_is_the_worst():
    sets = worst_of_sets(_ctx("a", "b", "c"), 0.95, _scores(a=0.2, b=0.7, c=0.4), lambda m: m["score"])
    assert sets.worst["synthetic"] == "b"
    assert [m["synthetic"] for m in sets.per_set] == ["a", "b", "c"]


def test_the_lowest_protection_is_the_worst():
    sets = worst_of_sets(
        _ctx("a", "b", "c"), 0.95, _scores(a=0.6, b=0.9, c=0.3), lambda m: m["score"], higher_is_worse=False
    )
    assert sets.worst["synthetic"] == "c"


def test_of_equal_scores_the_first_set_is_the_worst():
    sets = worst_of_sets(_ctx("a", "b", "c"), 0.95, _scores(a=0.1, b=0.5, c=0.5), lambda m: m["score"])
    assert sets.worst["i"] == 1


def test_a_set_that_cannot_be_measured_is_passed_over():
    sets = worst_of_sets(_ctx("a", "b"), 0.95, _scores(a=None, b=0.1), lambda m: m["score"])
    assert sets.worst["synthetic"] == "b"
    assert [m["score"] for m in sets.per_set] == [None, 0.1]


def test_no_worst_set_when_none_can_be_measured():
    sets = worst_of_sets(_ctx("a", "b"), 0.95, _scores(a=None, b=None), lambda m: m["score"])
    assert sets.worst is None


# ---------------------------------------------------------------- worst_of: any alternatives


def test_worst_of_measures_each_alternative_at_the_bonferroni_level_in_order():
    found = worst_of(["reverse", "released"], 0.95, lambda name, level: (name, level), lambda m: len(m[0]))
    assert found.level == pytest.approx(0.975)
    assert found.each == [("reverse", found.level), ("released", found.level)]
    assert found.worst == ("released", found.level)


def test_worst_of_equal_scores_is_the_first_and_a_protection_takes_the_lowest():
    scores = {"a": 0.5, "b": 0.5, "c": 0.2}
    assert worst_of(list(scores), 0.9, lambda k, level: k, scores.get).worst == "a"
    assert worst_of(list(scores), 0.9, lambda k, level: k, scores.get, higher_is_worse=False).worst == "c"


# ---------------------------------------------------------------- against_control: an attack against its baseline


def _difference(main, baseline, level):
    """A rate minus its baseline, its interval +-(1 - level) around it: so a test sees the level each was taken at."""
    value = main - (0.0 if baseline is None else baseline.rate)
    return Estimate(value, (value - (1 - level), value + (1 - level)))


def _attack(original, holdout=None):
    return {"original": original, "holdout": holdout}.__getitem__


def test_the_holdout_control_is_the_baseline_when_there_is_one():
    found = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7)
    assert [b.name for b in found.considered] == ["holdout"]
    assert (found.raw, found.baseline.rate, found.baseline.control) == (0.9, 0.6, 0.6)
    assert found.value == pytest.approx(0.3) and found.level == 0.95
    assert found.interval == pytest.approx((0.25, 0.35))


def test_chance_is_the_baseline_without_a_holdout():
    found = against_control(_attack(0.9), lambda r: r, _difference, 0.95, chance=0.7)
    assert (found.baseline.name, found.control) == ("chance", None)
    assert found.value == pytest.approx(0.2)


def test_the_better_of_chance_and_the_control_for_the_attacker_with_each_interval_at_the_bonferroni_level():
    # Risks: the larger baseline (0.7, chance) is the attacker's better; the interval of the smaller difference.
    found = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7, pick="better")
    assert [b.name for b in found.considered] == ["chance", "holdout"]
    assert found.baseline.name == "chance" and found.level == pytest.approx(0.975)
    assert found.value == pytest.approx(0.2)
    assert found.interval == pytest.approx((0.2 - 0.025, 0.2 + 0.025))
    # A protection (higher is safer): the smaller baseline, the interval of the larger difference.
    safe = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7, pick="better",
                           higher_is_worse=False)  # fmt: skip
    assert safe.baseline.name == "holdout" and safe.value == pytest.approx(0.3)
    assert safe.interval == pytest.approx((0.3 - 0.025, 0.3 + 0.025))


def test_of_equal_baselines_chance_is_reported():
    found = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.6, pick="better")
    assert found.baseline.name == "chance"


def test_a_baseline_reported_but_not_compared_leaves_the_value_and_level_alone():
    found = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7, pick="better",
                            compare=False)  # fmt: skip
    assert (found.value, found.level, found.baseline.name) == (0.9, None, "chance")
    assert found.interval == pytest.approx((0.85, 0.95))


def test_an_attack_without_any_baseline_is_refused():
    with pytest.raises(ValueError, match="no baseline"):
        against_control(_attack(0.9), lambda r: r, _difference, 0.95)


# The range narrowing of affairs on a Fair-data release (an independent check's rerun): the released
# mapping's excess is the larger, the reverse mapping's interval reaches higher.
MAPPINGS = ["reverse", "released"]
FAIR = [Estimate(-0.032, (-0.176, 0.116)), Estimate(-0.0034, (-0.025, 0.014))]


def test_an_interval_end_taken_from_another_estimate_is_named_with_that_estimate():
    assert borrowed_ends_note("mapping", MAPPINGS, FAIR, shown=1) == (
        "The interval holds for the larger of the 2 mappings' values, whichever it is: its upper end 0.116 is "
        "the reverse mapping's (estimate -0.032, interval [-0.176, 0.116]); the estimate shown is the released "
        "mapping's (its own interval [-0.025, 0.014])."
    )


def test_no_note_when_both_ends_are_the_shown_estimates():
    # The demo's nonprivate age narrowing: the released mapping's interval holds both ends.
    estimates = [Estimate(0.0937, (0.0622, 0.1351)), Estimate(0.1383, (0.0957, 0.1939))]
    assert borrowed_ends_note("mapping", MAPPINGS, estimates, shown=1) is None


def test_both_ends_taken_from_one_other_estimate_name_it_once():
    estimates = [Estimate(0.138, (-0.0897, 0.582)), Estimate(-0.0137, (-0.0137, 0.652))]
    assert borrowed_ends_note("mapping", MAPPINGS, estimates, shown=0) == (
        "The interval holds for the larger of the 2 mappings' values, whichever it is: both its ends are the "
        "released mapping's (estimate -0.0137, interval [-0.0137, 0.652]); the estimate shown is the reverse "
        "mapping's (its own interval [-0.0897, 0.582])."
    )


def test_for_the_smaller_value_the_smaller_ends_are_compared():
    # A protection: the smaller value is the worse; its interval's ends are the smallest lower and upper.
    estimates = [Estimate(0.25, (0.05, 0.40)), Estimate(0.30, (0.02, 0.60))]
    assert borrowed_ends_note("mapping", MAPPINGS, estimates, shown=0, worst="min") == (
        "The interval holds for the smaller of the 2 mappings' values, whichever it is: its lower end 0.02 is "
        "the released mapping's (estimate 0.3, interval [0.02, 0.6]); the estimate shown is the reverse "
        "mapping's (its own interval [0.05, 0.4])."
    )


def test_an_end_tied_with_the_shown_estimates_stays_its_own():
    estimates = [Estimate(0.1, (0.0, 0.5)), Estimate(0.2, (0.05, 0.5))]
    assert borrowed_ends_note("mapping", MAPPINGS, estimates, shown=1) is None
    assert (
        borrowed_ends_note("mapping", MAPPINGS, [Estimate(0.3, (0.0, 0.5)), estimates[1]], shown=0, worst="min") is None
    )


def test_the_worst_interval_comes_with_the_note_on_its_ends():
    assert worst_interval_noted("mapping", MAPPINGS, FAIR, shown=1) == (
        (-0.025, 0.116),
        borrowed_ends_note("mapping", MAPPINGS, FAIR, shown=1),
    )
    demo = [Estimate(0.0937, (0.0622, 0.1351)), Estimate(0.1383, (0.0957, 0.1939))]
    assert worst_interval_noted("mapping", MAPPINGS, demo, shown=1) == ((0.0957, 0.1939), None)


def _wider_against_the_holdout(main, baseline, level):
    """:func:`_difference`, but against the holdout eight times as wide (its own sampling error adds)."""
    found = _difference(main, baseline, level)
    if baseline is None or baseline.name != "holdout":
        return found
    half = 8 * (1 - level)
    return Estimate(found.value, (found.value - half, found.value + half))


def test_an_interval_end_from_the_other_baseline_comparison_is_named_with_it():
    # Against chance (0.7, the attacker's better baseline): 0.2 +- 0.025; against the holdout (0.6): 0.3 +- 0.2.
    # The interval of the smaller difference takes the holdout comparison's lower end.
    found = against_control(_attack(0.9, 0.6), lambda r: r, _wider_against_the_holdout, 0.95, chance=0.7, pick="better")
    assert found.baseline.name == "chance" and found.value == pytest.approx(0.2)
    assert found.interval == pytest.approx((0.1, 0.225))
    assert found.borrowed == (
        "The interval holds for the smaller of the 2 baseline comparisons' values, whichever it is: its lower end "
        "0.1 is the holdout baseline comparison's (estimate 0.3, interval [0.1, 0.5]); the estimate shown is the "
        "chance baseline comparison's (its own interval [0.175, 0.225])."
    )


def test_no_comparison_note_against_one_baseline_or_when_the_shown_comparison_gives_both_ends():
    assert against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7).borrowed is None
    found = against_control(_attack(0.9, 0.6), lambda r: r, _difference, 0.95, chance=0.7, pick="better")
    assert found.borrowed is None


def test_the_printed_level_of_a_worst_of_two_is_the_bonferroni_level():
    # 1 - (1 - 0.95) / 2, as bonferroni_note records it
    assert printed_level(0.95, 2, 0.975) == 0.975


def test_the_printed_level_of_one_interval_is_the_rules_confidence():
    assert printed_level(0.95, 1, 0.95) == 0.95
    assert printed_level(0.9, None, None) == 0.9
    assert printed_level(None, None, None) is None
