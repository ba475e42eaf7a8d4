import pytest
from conftest import TOY_POLICY

from policycheck.core.errors import InvalidInput
from policycheck.engine.compiler import compile_plan
from policycheck.policy.load import load_policy
from policycheck.release.load import load_manifest

TWO_RULES = TOY_POLICY + (
    "  - id: female-share\n    metric: toy_share\n    params: {column: sex, value: Female}\n"
    "    threshold: {fail_above: 0.9}\n"
)


def test_rules_needing_the_same_result_share_one_computation(toy_metric, write, toy_release):
    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", TWO_RULES), release), release)
    (step,) = plan.intermediates
    assert step.need.label == "toy_counts(column=sex, synthetic=0)"
    assert step.used_by == ("male-share", "female-share")


def test_plan_names_the_attacker_knowledge_each_evaluator_uses(toy_metric, write):
    text = compile_plan(load_policy(write("p.yaml", TOY_POLICY))).describe()
    assert "male-share [blocking]: toy_share" in text
    assert "attacker knowledge used: every released synthetic set" in text


def test_metric_needing_a_holdout_is_refused_without_one(toy_metric, write, toy_release):
    from policycheck.metrics import registry

    spec = registry._METRICS["toy_share"]
    registry._METRICS["toy_share"] = spec.__class__(**{**spec.__dict__, "inputs": frozenset({"synthetic", "holdout"})})
    text = toy_release["manifest"].read_text().replace("holdout: holdout.csv\n", "")
    toy_release["manifest"].write_text(text)
    release = load_manifest(toy_release["manifest"])
    with pytest.raises(InvalidInput, match="needs a holdout set and the release has none"):
        compile_plan(load_policy(write("p.yaml", TOY_POLICY), release), release)


def test_metric_reading_the_holdout_only_as_a_control_runs_without_one(toy_metric, write, toy_release):
    from policycheck.metrics import registry

    spec = registry._METRICS["toy_share"]
    registry._METRICS["toy_share"] = spec.__class__(**{**spec.__dict__, "optional_inputs": frozenset({"holdout"})})
    toy_release["manifest"].write_text(toy_release["manifest"].read_text().replace("holdout: holdout.csv\n", ""))
    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", TOY_POLICY), release), release)
    assert "holdout (if the release has it)" in plan.describe()
