"""Composition of declared budgets: closed forms against worked examples and the dp_accounting library."""

from __future__ import annotations

import math

import dp_accounting
import pytest
from dp_accounting.pld import common as pld_common
from dp_accounting.pld import privacy_loss_distribution as pld
from dp_accounting.rdp import rdp_privacy_accountant as rdp
from pydantic import ValidationError

from policycheck.methods.dp.composition import (
    advanced_composition,
    basic_composition,
    compose,
    pld_epsilon,
    rdp_epsilon,
)
from policycheck.release.mechanism import Mechanism


def test_basic_composition_sums_epsilons_and_deltas():
    assert basic_composition([(0.5, 1e-7), (0.2, 0.0), (1.0, 1e-6)]) == pytest.approx((1.7, 1.1e-6))


@pytest.mark.parametrize(
    ("pairs", "slack", "expected"),
    [
        # Worked examples; the same inputs give the same epsilon in IBM diffprivlib 0.6.6
        # (BudgetAccountant(slack=...).total()), which implements the same theorem.
        ([(0.1, 0.0)] * 100, 1e-5, 5.298109661766884),
        ([(0.05, 0.0)] * 400, 1e-6, 5.756417629125314),
        # Few small epsilons: the sum is the smallest of the three bounds.
        ([(0.1, 0.0)] * 10, 1e-5, 1.0),
        ([(0.5, 1e-7), (0.2, 0.0), (1.0, 1e-6)], 1e-5, 1.7),
    ],
)
def test_advanced_composition_matches_worked_examples(pairs, slack, expected):
    assert advanced_composition(pairs, slack)[0] == pytest.approx(expected, rel=1e-12)


def test_advanced_composition_hand_computed_for_100_runs_of_0_1():
    # sum (e^0.1 - 1) 0.1 / (e^0.1 + 1) over 100 runs, plus sqrt(2 * 1 * ln(1 / 1e-5)).
    drift = 100 * (math.exp(0.1) - 1) * 0.1 / (math.exp(0.1) + 1)
    assert drift == pytest.approx(0.4995837, abs=1e-7)
    assert advanced_composition([(0.1, 0.0)] * 100, 1e-5)[0] == pytest.approx(drift + math.sqrt(2 * math.log(1e5)))


def test_advanced_composition_total_delta_adds_slack_and_deltas():
    _, delta = advanced_composition([(0.5, 1e-7), (1.0, 1e-6)], 1e-5)
    assert delta == pytest.approx(1 - (1 - 1e-5) * (1 - 1e-7) * (1 - 1e-6), rel=1e-12)


def test_pld_matches_exact_optimal_composition_of_pure_dp():
    # Kairouz, Oh and Viswanath (2017), Thm. 3.3: 10 runs of 0.5-DP are
    # ((10 - 2i) 0.5, delta_i)-DP with delta_1 = (e^5 - e^4) / (1 + e^0.5)^10.
    delta_1 = (math.exp(5.0) - math.exp(4.0)) / (1 + math.exp(0.5)) ** 10
    assert delta_1 == pytest.approx(0.005519627, abs=1e-9)
    mechs = [Mechanism(epsilon=0.5)] * 10
    eps = pld_epsilon(mechs, delta_1)
    assert eps == pytest.approx(4.0, abs=2e-3)


def test_pure_dp_at_delta_zero_composes_to_the_sum_in_every_accountant():
    comp = compose([Mechanism(epsilon=0.5), Mechanism(epsilon=0.25), Mechanism(mechanism="laplace", epsilon=0.25)], 0.0)
    assert comp.by_accountant["basic"] == pytest.approx(1.0)
    assert comp.by_accountant["pld"] == pytest.approx(1.0, abs=1e-3)
    assert comp.by_accountant["rdp"] is None  # Renyi accounting needs delta > 0


def test_gaussian_zcdp_matches_dp_accounting_directly():
    # rho-zCDP Gaussian: sigma = 1 / sqrt(2 rho); RDP and PLD as computed by the library itself.
    rho, delta = 0.05, 1e-6
    sigma = 1 / math.sqrt(2 * rho)
    accountant = rdp.RdpAccountant()
    accountant.compose(dp_accounting.SelfComposedDpEvent(dp_accounting.GaussianDpEvent(sigma), 3))
    expected_rdp = accountant.get_epsilon(delta)
    expected_pld = pld.from_gaussian_mechanism(sigma).self_compose(3).get_epsilon_for_delta(delta)
    mechs = [Mechanism(mechanism="gaussian", rho=rho, steps=3)]
    assert rdp_epsilon(mechs, delta) == pytest.approx(expected_rdp, rel=1e-12)
    assert pld_epsilon(mechs, delta) == pytest.approx(expected_pld, rel=1e-12)


def test_zcdp_composes_additively_in_rho():
    # Two rho = 0.1 zCDP runs are one rho = 0.2 run under Renyi accounting.
    two = rdp_epsilon([Mechanism(mechanism="zcdp", rho=0.1)] * 2, 1e-6)
    one = rdp_epsilon([Mechanism(mechanism="zcdp", rho=0.2)], 1e-6)
    assert two == pytest.approx(one, rel=1e-12)


def test_subsampled_gaussian_uses_the_library_dp_sgd_accounting():
    q, sigma, steps, delta = 0.01, 1.1, 1000, 1e-5
    accountant = rdp.RdpAccountant()
    event = dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(sigma))
    accountant.compose(dp_accounting.SelfComposedDpEvent(event, steps))
    mech = Mechanism(mechanism="subsampled_gaussian", noise_multiplier=sigma, sampling_probability=q, steps=steps)
    assert rdp_epsilon([mech], delta) == pytest.approx(accountant.get_epsilon(delta), rel=1e-12)


def test_approximate_mechanism_has_no_renyi_curve_but_a_pld():
    mechs = [Mechanism(epsilon=1.0, delta=1e-7)]
    assert rdp_epsilon(mechs, 1e-6) is None
    dist = pld.from_privacy_parameters(pld_common.DifferentialPrivacyParameters(1.0, 1e-7))
    expected = dist.get_epsilon_for_delta(1e-6)
    assert pld_epsilon(mechs, 1e-6) == pytest.approx(expected)


def test_every_accountant_bounds_pure_dp_no_tighter_than_the_optimum():
    mechs = [Mechanism(epsilon=0.1)] * 100
    comp = compose(mechs, 1e-5)
    optimum = comp.by_accountant["pld"]
    for name in ("basic", "advanced", "rdp"):
        assert comp.by_accountant[name] >= optimum - 1e-3
    assert comp.best[0] == "pld"


def test_declared_deltas_above_the_target_make_basic_composition_infinite():
    comp = compose([Mechanism(epsilon=1.0, delta=1e-5)], 1e-6)
    assert math.isinf(comp.by_accountant["basic"])
    assert math.isinf(comp.by_accountant["advanced"])


def test_undeclared_epsilon_is_priced_at_a_share_of_the_delta_left():
    gauss = Mechanism(mechanism="gaussian", rho=0.05)
    comp = compose([Mechanism(epsilon=0.5), gauss], 1e-6)
    # The Gaussian set takes all of the target delta in basic composition.
    assert comp.pairs[1][1] == pytest.approx(1e-6)
    assert comp.pairs[1][0] == pytest.approx(pld_epsilon([gauss], 1e-6))
    assert comp.by_accountant["basic"] == pytest.approx(0.5 + comp.pairs[1][0])


def test_mechanism_infers_pure_or_approximate_from_delta():
    assert Mechanism(epsilon=1.0).mechanism == "pure"
    assert Mechanism(epsilon=1.0, delta=1e-6).mechanism == "approximate"


def test_mechanism_without_its_parameters_is_refused():
    with pytest.raises(ValidationError, match="needs rho or noise_multiplier"):
        Mechanism(mechanism="gaussian")
    with pytest.raises(ValidationError, match="greater than 0"):
        Mechanism(epsilon=-1.0)
