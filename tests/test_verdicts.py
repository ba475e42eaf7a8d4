import pytest

from policycheck.metrics.base import MetricResult
from policycheck.policy.model import Threshold
from policycheck.verdicts import compared_value, exit_code, judge, release_verdict


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
