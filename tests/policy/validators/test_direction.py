from conftest import TOY_POLICY
from contexts import context, lines, resolved

from policycheck.policy.validators.direction import direction_matches_metric


def test_fail_below_on_a_higher_is_riskier_metric_is_placed_at_the_fail_level(toy_metric, write):
    ctx = context(write("p.yaml", TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_below: 0.1")))
    assert lines(direction_matches_metric(ctx, resolved(ctx, "male-share"))) == [
        "p.yaml:7:17: higher is riskier for toy_share: a rule fails when the value is too high; "
        "use fail_above (and warn_above)"
    ]


def test_fail_above_on_a_higher_is_riskier_metric_passes(toy_metric, write):
    ctx = context(write("p.yaml", TOY_POLICY))
    assert direction_matches_metric(ctx, resolved(ctx, "male-share")) == []
