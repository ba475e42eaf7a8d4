"""anonymeter's Wilson-score rates and residual risk, against hand computation."""

import pytest

from policycheck.core.stats import bonferroni
from policycheck.methods.wp29.rates import AttackCounts, bound, residual_success, success_rate

Z2 = 1.959963984540054**2  # z of 95 %, squared


def test_wilson_rate_of_50_in_100_is_one_half_with_half_width_0_0962():
    # (50 + z²/2) / (100 + z²) = 0.5; z / (100 + z²) * sqrt(50 * 50 / 100 + z² / 4) = 0.096168
    rate = success_rate(100, 50, 0.95)
    assert rate.value == pytest.approx(0.5, abs=1e-12)
    assert rate.error == pytest.approx(1.959963984540054 / (100 + Z2) * (25 + Z2 / 4) ** 0.5, rel=1e-12)
    assert rate.error == pytest.approx(0.0961685, abs=1e-7)


def test_residual_risk_normalises_the_excess_over_the_control():
    # control 20/100: Wilson 21.9207/103.8415 = 0.211098; risk (0.5 - 0.211098) / 0.788902 = 0.366208
    attack, control = success_rate(100, 50, 0.95), success_rate(100, 20, 0.95)
    assert control.value == pytest.approx(0.211098, abs=1e-6)
    residual = residual_success(attack, control)
    assert residual.value == pytest.approx(0.366208, abs=1e-6)
    # error: sqrt((0.096168 / 0.788902)^2 + (0.077731 * (0.5 - 1) / 0.788902^2)^2) = 0.136966
    assert residual.error == pytest.approx(0.136966, abs=1e-6)


def test_risk_and_interval_are_clipped_to_the_unit_interval():
    # main 5/100 (Wilson 0.0666), control 30/100 (0.3077): residual -0.349 +- 0.09, wholly below 0.
    assert AttackCounts(100, 5, 0, 30.0, 100).risk(0.95).interval == (0.0, 0.0)
    # main 100/100 (Wilson 0.9630), control 0/100 (0.0185): residual 0.9812 +- 0.0189, upper end 1.0001 clipped to 1.
    risk = AttackCounts(100, 100, 0, 0.0, 100).risk(0.95)
    assert risk.interval[1] == 1.0 and risk.value < 1.0


def test_without_control_the_risk_is_the_main_rate():
    risk = AttackCounts(100, 50, 3, None, 100).risk(0.95)
    assert risk.value == pytest.approx(0.5) and risk.interval == bound(success_rate(100, 50, 0.95)).interval


def test_bonferroni_level_of_the_worst_of_four_sets():
    assert bonferroni(0.95, 4) == pytest.approx(0.9875)
