import pytest

from policycheck.core.errors import EvaluationError
from policycheck.engine.verdicts import (
    compared_value,
    exit_code,
    judge,
    judge_result,
    records_to_settle,
    release_verdict,
)
from policycheck.metrics.base import MetricResult
from policycheck.metrics.combinators import BonferroniNote, bonferroni_note
from policycheck.metrics.details import Details
from policycheck.policy.model import Threshold


@pytest.mark.parametrize(
    ("value", "expected"), [(0.25, "fail"), (0.2, "warn"), (0.15, "warn"), (0.1, "pass"), (0.0, "pass")]
)
def test_above_threshold_fails_strictly_beyond_the_level(value, expected):
    assert judge(Threshold(fail_above=0.2, warn_above=0.1), value) == expected


@pytest.mark.parametrize(("value", "expected"), [(0.4, "fail"), (0.5, "warn"), (0.7, "pass")])
def test_below_threshold_is_the_mirror_image(value, expected):
    assert judge(Threshold(fail_below=0.5, warn_below=0.6), value) == expected


def test_compare_upper_uses_the_interval_end():
    result = MetricResult(0.5, (0.45, 0.62))
    assert compared_value(Threshold(fail_above=0.6, compare="upper"), result) == 0.62
    assert compared_value(Threshold(fail_above=0.6, compare="lower"), result) == 0.45
    assert compared_value(Threshold(fail_above=0.6, compare="estimate"), result) == 0.5


def test_nan_is_never_a_pass():
    with pytest.raises(EvaluationError, match="NaN"):
        judge(Threshold(fail_above=0.2), float("nan"))


def test_advisory_failure_only_warns():
    rules = [{"verdict": "pass", "severity": "blocking"}, {"verdict": "fail", "severity": "advisory"}]
    assert release_verdict(rules) == "warn"


def test_waived_failure_counts_as_pass():
    assert release_verdict([{"verdict": "waived", "severity": "blocking"}]) == "pass"


def test_error_outranks_failure():
    rules = [{"verdict": "fail", "severity": "blocking"}, {"verdict": "error", "severity": "advisory"}]
    assert release_verdict(rules) == "error"


@pytest.mark.parametrize(
    ("verdict", "fail_on_warn", "code"),
    [("pass", False, 0), ("warn", False, 0), ("warn", True, 1), ("fail", False, 1), ("error", False, 3)],
)
def test_exit_codes(verdict, fail_on_warn, code):
    assert exit_code(verdict, fail_on_warn) == code


# --- inconclusive: the estimate and the compared bound on opposite sides of the fail level


def test_upper_bound_beyond_with_estimate_within_is_inconclusive():
    # The issue's case: estimate 0.078, interval +-0.3, threshold 0.3.
    result = MetricResult(0.078, (-0.22, 0.378), 0.95, sample_size=1000)
    assert judge_result(Threshold(fail_above=0.3, compare="upper"), result).verdict == "inconclusive"


def test_estimate_and_bound_beyond_fails():
    result = MetricResult(0.35, (0.31, 0.39), 0.95)
    assert judge_result(Threshold(fail_above=0.3, compare="upper"), result).verdict == "fail"


def test_neither_beyond_judges_warn_on_the_compared_bound():
    # Estimate 0.1 is below warn 0.15, but the upper bound 0.2 is above it.
    result = MetricResult(0.1, (0.0, 0.2), 0.95)
    judged = judge_result(Threshold(fail_above=0.3, warn_above=0.15, compare="upper"), result)
    assert (judged.verdict, judged.compared) == ("warn", 0.2)


def test_compare_estimate_is_never_inconclusive():
    result = MetricResult(0.078, (-0.22, 0.378), 0.95, sample_size=1000)
    assert judge_result(Threshold(fail_above=0.3, compare="estimate"), result).verdict == "pass"


def test_lower_bound_within_with_estimate_beyond_is_inconclusive():
    # compare: lower asks that the value be shown beyond the fail level.
    result = MetricResult(0.35, (0.28, 0.42), 0.95, sample_size=400)
    assert judge_result(Threshold(fail_above=0.3, compare="lower"), result).verdict == "inconclusive"


def test_fail_below_with_lower_bound_beyond_is_inconclusive():
    # Higher is safer: estimate 0.6 above fail_below 0.5, lower bound 0.45 below it.
    result = MetricResult(0.6, (0.45, 0.75), 0.95)
    assert judge_result(Threshold(fail_below=0.5, compare="lower"), result).verdict == "inconclusive"


def test_records_to_settle_follow_the_square_of_the_width_ratio():
    # n' = ceil(1000 * ((0.378 - 0.078) / (0.3 - 0.078))^2) = ceil(1000 * 1.82615...) = 1827
    result = MetricResult(0.078, (-0.22, 0.378), 0.95, sample_size=1000)
    judged = judge_result(Threshold(fail_above=0.3, compare="upper"), result)
    assert judged.records_to_settle == 1827
    assert "About 1,827 records (this run used 1,000) would settle it" in judged.reason


def test_records_to_settle_are_omitted_without_a_sample_size():
    judged = judge_result(Threshold(fail_above=0.3, compare="upper"), MetricResult(0.078, (-0.22, 0.378), 0.95))
    assert judged.records_to_settle is None and "would settle" not in judged.reason


def test_records_to_settle_when_the_estimate_is_beyond_and_the_bound_is_not():
    # n' = ceil(400 * ((0.28 - 0.35) / (0.3 - 0.35))^2) = ceil(400 * 1.96) = 784
    assert records_to_settle(400, 0.35, 0.28, 0.3) == 784


def test_inconclusive_reason_says_the_sample_cannot_show_it():
    judged = judge_result(Threshold(fail_above=0.3, compare="upper"), MetricResult(0.078, (-0.22, 0.378), 0.95))
    assert judged.reason.startswith("The estimate 0.078 is not above the fail level 0.3, but the upper")
    assert "95% interval, 0.378, is" in judged.reason


@pytest.mark.parametrize(
    ("on_inconclusive", "severity", "verdict"),
    [("warn", "blocking", "warn"), ("fail", "blocking", "fail"), ("fail", "advisory", "warn")],
)
def test_on_inconclusive_decides_the_release_verdict(on_inconclusive, severity, verdict):
    rules = [
        {"verdict": "pass", "severity": "blocking"},
        {"verdict": "inconclusive", "severity": severity, "on_inconclusive": on_inconclusive},
    ]
    assert release_verdict(rules) == verdict


def test_inconclusive_that_only_warns_fails_with_fail_on_warn():
    verdict = release_verdict([{"verdict": "inconclusive", "severity": "blocking", "on_inconclusive": "warn"}])
    assert (exit_code(verdict), exit_code(verdict, fail_on_warn=True)) == (0, 1)


# --- compare: interval, the default: the near and far ends of the interval against each level


def test_a_threshold_without_compare_decides_on_the_interval():
    assert Threshold(fail_above=0.3).compare == "interval"


# Risk (fail_above 0.3, warn_above 0.1): near end = lower end, far end = upper end. A level is crossed
# only strictly beyond it, so an end sitting on a level is within it.
ABOVE = [
    # (lower, upper, verdict, compared value, unsettled level)
    ((0.00, 0.08), "pass", 0.08, None),  # far end within the warn level
    ((0.00, 0.10), "pass", 0.10, None),  # far end on the warn level: within it
    ((0.05, 0.20), "warn", 0.20, "warn"),  # within fail, straddles warn: not shown within warn
    ((0.12, 0.25), "warn", 0.12, None),  # near end beyond warn, far end within fail: shown beyond warn
    ((0.12, 0.30), "warn", 0.12, None),  # far end on the fail level: within it
    ((0.05, 0.40), "inconclusive", 0.40, "fail"),  # contains both levels
    ((0.20, 0.40), "inconclusive", 0.40, "fail"),  # shown beyond warn, contains fail: still unsettled
    ((0.30, 0.40), "inconclusive", 0.40, "fail"),  # near end on the fail level: not beyond it
    ((0.31, 0.40), "fail", 0.31, None),  # near end beyond the fail level
]


@pytest.mark.parametrize(("interval", "verdict", "compared", "unsettled"), ABOVE)
def test_interval_rule_truth_table_for_a_risk(interval, verdict, compared, unsettled):
    estimate = sum(interval) / 2
    judged = judge_result(Threshold(fail_above=0.3, warn_above=0.1), MetricResult(estimate, interval, 0.95))
    assert (judged.verdict, judged.compared, judged.unsettled, judged.decided_on) == (
        verdict,
        compared,
        unsettled,
        "interval",
    )


# Higher is safer (fail_below 0.5, warn_below 0.7): near end = upper end, far end = lower end.
BELOW = [
    ((0.80, 0.90), "pass", 0.80, None),
    ((0.60, 0.80), "warn", 0.60, "warn"),
    ((0.55, 0.65), "warn", 0.65, None),
    ((0.40, 0.60), "inconclusive", 0.40, "fail"),
    ((0.30, 0.45), "fail", 0.45, None),
]


@pytest.mark.parametrize(("interval", "verdict", "compared", "unsettled"), BELOW)
def test_interval_rule_truth_table_when_higher_is_safer(interval, verdict, compared, unsettled):
    estimate = sum(interval) / 2
    judged = judge_result(Threshold(fail_below=0.5, warn_below=0.7), MetricResult(estimate, interval, 0.95))
    assert (judged.verdict, judged.compared, judged.unsettled) == (verdict, compared, unsettled)


@pytest.mark.parametrize(
    ("interval", "verdict"), [((0.0, 0.2), "pass"), ((0.2, 0.4), "inconclusive"), ((0.31, 0.4), "fail")]
)
def test_interval_rule_without_a_warn_level(interval, verdict):
    judged = judge_result(Threshold(fail_above=0.3), MetricResult(0.25, interval, 0.95))
    assert judged.verdict == verdict


def test_interval_rule_fails_on_the_near_end_even_when_the_estimate_is_far_beyond():
    # A copy: estimate 1, interval [0.996, 1]: the whole interval is beyond the level.
    judged = judge_result(Threshold(fail_above=0.01, warn_above=0.001), MetricResult(1.0, (0.996, 1.0), 0.95))
    assert (judged.verdict, judged.compared) == ("fail", 0.996)


def test_interval_rule_is_inconclusive_on_the_issues_safe_release_that_the_estimate_failed():
    # Issue 28: an independent-marginals release, excess of exact copies 0.0125 in [-0.0073, 0.0301],
    # fail_above 0.01: the estimate fails it, the interval contains both 0 and the level.
    result = MetricResult(0.0125, (-0.0073, 0.0301), 0.95, sample_size=800)
    threshold = Threshold(fail_above=0.01, warn_above=0.001)
    assert judge_result(threshold.model_copy(update={"compare": "estimate"}), result).verdict == "fail"
    judged = judge_result(threshold, result)
    assert judged.verdict == "inconclusive"
    # The estimate is beyond the level, so the lower end must rise past it:
    # n' = ceil(800 * ((-0.0073 - 0.0125) / (0.01 - 0.0125))^2) = ceil(800 * 7.92^2) = ceil(50181.12) = 50182.
    assert judged.records_to_settle == 50182
    assert "About 50,182 records (this run used 800) would settle it" in judged.reason


def test_a_warn_the_interval_straddles_says_how_many_records_settle_the_warn_level():
    # Estimate 0.05 in [-0.01, 0.16], warn 0.1, fail 0.3: within fail, not shown within warn.
    # The upper end must come down to 0.1: n' = ceil(1000 * ((0.16 - 0.05) / (0.1 - 0.05))^2) = 4840.
    judged = judge_result(
        Threshold(fail_above=0.3, warn_above=0.1), MetricResult(0.05, (-0.01, 0.16), 0.95, sample_size=1000)
    )
    assert (judged.verdict, judged.unsettled, judged.records_to_settle) == ("warn", "warn", 4840)
    assert judged.reason.startswith(
        "Within the fail level 0.3, but this sample cannot show the value within the "
        "warn level 0.1 (estimate 0.05, its 95% interval [-0.01, 0.16]), so the rule warns."
    )
    assert judged.decision == (
        "Decided on the interval: within the fail level 0.3 (upper end 0.16), it holds the "
        "warn level 0.1 (lower end -0.01)."
    )


def test_a_warn_shown_beyond_the_warn_level_is_settled():
    judged = judge_result(
        Threshold(fail_above=0.3, warn_above=0.1), MetricResult(0.2, (0.12, 0.25), 0.95, sample_size=1000)
    )
    assert (judged.verdict, judged.reason, judged.records_to_settle) == ("warn", None, None)


def test_interval_rule_decides_a_value_without_an_interval_on_its_estimate():
    judged = judge_result(Threshold(fail_above=3.0, warn_above=2.0), MetricResult(2.5))
    assert (judged.verdict, judged.compared, judged.decided_on) == ("warn", 2.5, "estimate")
    assert (
        judged.decision
        == "Decided on the value (it has no interval): 2.5 is above the warn level 2, within the fail level 3."
    )


def test_interval_rule_never_passes_nan():
    with pytest.raises(EvaluationError, match="NaN"):
        judge_result(Threshold(fail_above=0.3), MetricResult(0.1, (float("nan"), 0.2), 0.95))


def test_the_decision_says_which_end_decided_and_against_which_level():
    judged = judge_result(Threshold(fail_above=0.3, warn_above=0.1), MetricResult(0.35, (0.31, 0.4), 0.95))
    assert judged.decision == "Decided on the interval: its lower end 0.31 is above the fail level 0.3."


@pytest.mark.parametrize("compare", ["estimate", "upper", "lower"])
def test_the_single_number_rules_say_they_decided(compare):
    judged = judge_result(Threshold(fail_above=0.3, compare=compare), MetricResult(0.1, (0.0, 0.2), 0.95))
    assert judged.decided_on == compare and f"compare: {compare}" in judged.decision


class _WorstOfTwenty(Details):
    bonferroni: BonferroniNote


def test_the_words_give_the_level_the_worst_of_several_intervals_holds_at():
    # The worst of 20 targets' intervals, each at 1 - 0.05 / 20 = 99.75%: the words name that level, as the
    # interval printed beside them does, not the rule's 95%.
    details = _WorstOfTwenty(bonferroni=bonferroni_note(0.95, 20, what="targets"))
    result = MetricResult(-0.067, (-0.285, 0.166), 0.95, details=details, sample_size=150, sample_unit="test rounds")
    judged = judge_result(Threshold(fail_above=0.2, warn_above=0.1), result)
    assert "its 99.75% interval [-0.285, 0.166]" in judged.reason and "95% interval" not in judged.reason


def test_the_sample_needed_is_counted_in_the_metrics_unit():
    # n' = ceil(150 * ((0.166 + 0.067) / (0.1 + 0.067))^2) = ceil(150 * 1.94664...) = 292
    result = MetricResult(-0.067, (-0.285, 0.166), 0.95, sample_size=150, sample_unit="test rounds")
    judged = judge_result(Threshold(fail_above=0.2, warn_above=0.1), result)
    assert "About 292 test rounds (this run used 150) would settle it" in judged.reason


#: A DP claim excess's interval: what one attack can show, not the value's own (metrics/dp/claims.py).
OF_THIS_ATTACK = "this attack's excess over the claim; the mechanism's own excess may be larger"


def test_an_interval_decision_says_what_the_interval_is_of():
    result = MetricResult(0.0, (0.0, 2.8), 0.95, interval_of=OF_THIS_ATTACK)
    judged = judge_result(Threshold(fail_above=0.0), result)
    assert judged.verdict == "inconclusive"
    assert "(estimate 0, its 95% interval [0, 2.8] of this attack's excess over the claim)." in judged.reason


def test_a_compared_end_says_what_its_interval_is_of():
    result = MetricResult(0.0, (0.0, 2.8), 0.95, interval_of=OF_THIS_ATTACK)
    judged = judge_result(Threshold(fail_above=0.0, compare="upper"), result)
    assert "the upper end of its 95% interval of this attack's excess over the claim, 2.8, is:" in judged.reason
