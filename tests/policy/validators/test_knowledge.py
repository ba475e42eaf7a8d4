import dataclasses

from conftest import TOY_POLICY
from contexts import context, lines, resolved

from policycheck.metrics import registry
from policycheck.metrics.base import Knowledge
from policycheck.policy.validators.knowledge import knowledge_granted


def test_a_metric_assuming_the_original_records_is_refused_under_the_no_box_model(toy_metric, write):
    registry._METRICS["toy_share"] = dataclasses.replace(toy_metric, knowledge=frozenset({Knowledge.ORIGINAL}))
    ctx = context(write("p.yaml", TOY_POLICY))
    assert lines(knowledge_granted(ctx, resolved(ctx, "male-share"))) == [
        "p.yaml:5:5: metric 'toy_share' assumes the attacker knows every original record, secrets included, "
        "which the 'no-box' attacker model does not grant"
    ]


def test_the_maximum_knowledge_model_grants_every_metric(toy_metric, write):
    registry._METRICS["toy_share"] = dataclasses.replace(toy_metric, knowledge=frozenset({Knowledge.ORIGINAL}))
    ctx = context(write("p.yaml", TOY_POLICY.replace("model: no-box", "model: maximum-knowledge")))
    assert knowledge_granted(ctx, resolved(ctx, "male-share")) == []


def test_the_knowledge_is_checked_when_the_attackers_columns_overlap(toy_metric, write):
    # sex as both quasi-identifier and secret refuses the attacker model, but not its name: the
    # knowledge it grants is still checked in the same run.
    registry._METRICS["toy_share"] = dataclasses.replace(toy_metric, knowledge=frozenset({Knowledge.ORIGINAL}))
    ctx = context(write("p.yaml", TOY_POLICY.replace("secrets: [income]", "secrets: [income, sex]")))
    assert ctx.attacker is None
    assert lines(knowledge_granted(ctx, resolved(ctx, "male-share"))) == [
        "p.yaml:5:5: metric 'toy_share' assumes the attacker knows every original record, secrets included, "
        "which the 'no-box' attacker model does not grant"
    ]
