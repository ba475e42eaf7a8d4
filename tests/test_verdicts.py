import pytest

from policycheck.metrics.base import MetricResult
from policycheck.policy.model import Threshold
from policycheck.verdicts import compared_value, exit_code, judge, judge_result, records_to_settle, release_verdict


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
    assert compared_value(Threshold(fail_above=0.6), result) == 0.5


def test_nan_is_never_a_pass():
    with pytest.raises(ValueError, match="NaN"):
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
    # The case: estimate 0.078, interval +-0.3, threshold 0.3.
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
    assert judge_result(Threshold(fail_above=0.3), result).verdict == "pass"


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
    rules = [{"verdict": "pass", "severity": "blocking"},
             {"verdict": "inconclusive", "severity": severity, "on_inconclusive": on_inconclusive}]
    assert release_verdict(rules) == verdict


def test_inconclusive_that_only_warns_fails_with_fail_on_warn():
    verdict = release_verdict([{"verdict": "inconclusive", "severity": "blocking", "on_inconclusive": "warn"}])
    assert (exit_code(verdict), exit_code(verdict, fail_on_warn=True)) == (0, 1)
