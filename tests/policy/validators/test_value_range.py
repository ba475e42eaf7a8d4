from conftest import TOY_POLICY
from contexts import context, lines, resolved

from policycheck.policy.validators.value_range import levels_in_value_range


def test_a_level_beyond_the_metrics_range_is_placed_at_that_level(toy_metric, write):
    ctx = context(
        write("p.yaml", TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 1.5, warn_above: 0.6"))
    )
    # Line 7: `    threshold: {fail_above: 1.5, ` puts fail_above at column 17.
    assert lines(levels_in_value_range(ctx, resolved(ctx, "male-share"))) == [
        "p.yaml:7:17: fail_above = 1.5 is outside the range of toy_share [0.0, 1.0]"
    ]


def test_levels_on_the_ends_of_the_range_pass(toy_metric, write):
    ctx = context(
        write("p.yaml", TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 1.0, warn_above: 0.0"))
    )
    assert levels_in_value_range(ctx, resolved(ctx, "male-share")) == []
