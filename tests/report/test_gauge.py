"""The gauge's steps on hand-computed numbers (test_charts.py holds the drawn gauge)."""

import pytest

from policycheck.report.charts.gauge import Scale, gauge_of, gauge_words, label_place, scale_of


def gauge(**rule):
    return gauge_of({"value": 0.3, "threshold": {"fail_above": 0.55}, **rule})


def test_a_share_is_shown_on_its_whole_range():
    assert scale_of(gauge(interval=[0.2, 0.4])) == Scale(0.0, 1.0)


def test_tiny_levels_are_zoomed_from_zero_to_a_rounded_end():
    # hi = 0.01, times 1.25 = 0.0125; the 1-2-5 step cutting it in at most 4 is 0.005; ceil(0.0125 / 0.005) = 3.
    tiny = gauge(value=0.005, threshold={"fail_above": 0.01, "warn_above": 0.001})
    assert scale_of(tiny) == Scale(0.0, pytest.approx(0.015))


def test_a_positive_quantity_starts_at_zero_with_a_margin_above():
    # points 3.2 and 1: span 2.2, padded by 15% (0.33) above; an epsilon starts at zero.
    epsilon = gauge(value=3.2, threshold={"fail_above": 1})
    assert scale_of(epsilon) == Scale(0.0, pytest.approx(3.53))


def test_an_interval_is_drawn_within_the_metrics_range_but_sets_the_scale_as_measured():
    clipped = gauge(value=0.9, interval=[0.7, 1.2], value_range=[0, 1])
    assert (clipped.interval, clipped.measured_interval) == ((0.7, 1.0), (0.7, 1.2))


def test_a_label_at_the_right_edge_turns_inwards():
    # "fail 0.55" is 9 characters, 54 units at size 10: from 553 it would end at 607, past the width 560.
    assert label_place(550, "fail 0.55", outward=True) == (False, 493, 547)


def test_the_words_say_the_value_interval_and_both_levels():
    rule = gauge(interval=[0.2, 0.4], threshold={"fail_below": 0.1, "warn_below": 0.25})
    assert gauge_words(rule) == "measured 0.3, interval 0.2 to 0.4; fail below 0.1, warn below 0.25"


def test_a_rule_without_a_fail_level_has_no_gauge():
    assert gauge(threshold={}) is None
