from conftest import TOY_POLICY
from contexts import context, lines

from policycheck.metrics import registry
from policycheck.policy.validators.params import validated_params

DCR = """\
metadata: {id: t, title: T, version: "1", owner: tests}
attacker: {model: no-box}
confidence: 0.9
rules:
  - {id: own, metric: dcr_share, params: {confidence: 0.99}, threshold: {fail_above: 0.55}}
  - {id: policys, metric: dcr_share, threshold: {fail_above: 0.55}}
"""


def params_of(ctx, rule_id):
    ((index, rule),) = [(i, r) for i, r in ctx.rules() if r.id == rule_id]
    return validated_params(ctx, index, rule.params, registry.metrics()[rule.metric])


def test_a_misspelt_param_is_placed_at_it_with_the_nearest_param(toy_metric, write):
    ctx = context(write("p.yaml", TOY_POLICY.replace("value: Male", "valeu: Male")))
    params, problems = params_of(ctx, "male-share")
    assert params is None
    assert "p.yaml:6:27: unknown key 'valeu' (did you mean 'value'?)" in lines(problems)


def test_the_policys_confidence_is_the_default_of_a_rule_that_sets_none(write):
    ctx = context(write("p.yaml", DCR))
    assert (params_of(ctx, "policys")[0].confidence, params_of(ctx, "own")[0].confidence) == (0.9, 0.99)
