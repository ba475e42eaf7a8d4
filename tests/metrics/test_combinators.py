"""worst_of_sets: every synthetic set measured at the Bonferroni level, the worst one reported."""

from types import SimpleNamespace

import pytest

from policycheck.metrics.combinators import worst_of_sets


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
