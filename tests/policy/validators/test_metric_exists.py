from conftest import TOY_POLICY
from contexts import context, lines

from policycheck.policy.validators.metric_exists import metric_exists


def test_an_unknown_metric_is_placed_at_its_name_with_the_nearest_metric(toy_metric, write):
    ctx = context(write("p.yaml", TOY_POLICY.replace("metric: toy_share", "metric: toy_shar")))
    ((index, rule),) = ctx.rules()
    assert lines(metric_exists(ctx, index, rule.metric)) == [
        "p.yaml:5:5: unknown metric 'toy_shar' (did you mean 'toy_share'?)"
    ]


def test_a_registered_metric_passes(toy_metric, write):
    ctx = context(write("p.yaml", TOY_POLICY))
    ((index, rule),) = ctx.rules()
    assert metric_exists(ctx, index, rule.metric) == []
