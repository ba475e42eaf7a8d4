"""Each (set, attack) pair's individual part against the holdout control (policycheck.metrics.reconstruction.rows)."""

import pytest

from policycheck.metrics.reconstruction.rows import individual_risk


def test_individual_risk_is_the_control_corrected_accuracy():
    # 90 of 100 right against 60 of 100 on the control: (0.9 - 0.6) / (1 - 0.6) = 0.75,
    # i.e. 1 - 0.10 / 0.40. Koopman's score interval of the error-rate ratio 10/100 over
    # 40/100 is (0.132428, 0.460232) (statsmodels' confint_proportions_2indep, method
    # "score", compare "ratio", correction False), so the risk lies in (0.539768, 0.867572).
    value, (lo, hi) = individual_risk(90, 100, 60, 100, 0.95)
    assert value == pytest.approx(0.75)
    assert (lo, hi) == pytest.approx((1 - 0.460232, 1 - 0.132428), abs=1e-6)


def test_individual_risk_interval_is_not_inflated_by_a_high_control_accuracy():
    # The case: 0.87 against a control of 0.85 on 1,000 records each. Joining
    # opposite ends of two Clopper-Pearson intervals gave (-0.240, 0.395); the ratio
    # of error rates 130/1000 over 150/1000 has the score interval (0.697152, 1.077061).
    value, (lo, hi) = individual_risk(870, 1000, 850, 1000, 0.95)
    assert value == pytest.approx(2 / 15)
    assert (lo, hi) == pytest.approx((1 - 1.077061, 1 - 0.697152), abs=1e-6)


def test_a_control_without_errors_leaves_no_individual_risk():
    assert individual_risk(100, 100, 100, 100, 0.95)[0] == 0.0
    # The attack errs on members where it never errs on the control: floored at -1.
    value, (lo, hi) = individual_risk(90, 100, 100, 100, 0.95)
    assert value == -1.0 and lo == -1.0 and hi < 0
