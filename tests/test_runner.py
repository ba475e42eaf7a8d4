import datetime as dt

from conftest import TOY_POLICY
from policycheck.compiler import compile_plan
from policycheck.policy.load import load_policy
from policycheck.release.load import load_manifest
from policycheck.runner import run_plan


def run(write, toy_release, text):
    release = load_manifest(toy_release["manifest"])
    plan = compile_plan(load_policy(write("p.yaml", text), release), release)
    return run_plan(plan, release, seed=1)


def test_measured_value_is_judged_against_the_threshold(toy_metric, write, toy_release):
    (outcome,) = run(write, toy_release, TOY_POLICY).outcomes
    # synthetic rows 0,1,2,4,4,5: sexes M,F,M,M,M,M -> 5/6 male, above warn 0.6, below fail 0.9
    assert outcome.result.value == 5 / 6
    assert outcome.verdict == "warn"


def test_evaluator_exception_becomes_an_error_verdict(toy_metric, write, toy_release):
    (outcome,) = run(write, toy_release, TOY_POLICY.replace("value: Male}", "value: Male, explode: true}")).outcomes
    assert outcome.verdict == "error"
    assert outcome.error == "the toy evaluator was told to fail"


def test_live_waiver_turns_a_failure_into_waived(toy_metric, write, toy_release):
    expires = (dt.date.today() + dt.timedelta(days=30)).isoformat()
    text = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.5") + (
        f"waivers:\n  - {{rule: male-share, reason: accepted, approved_by: DPO, expires: {expires}}}\n"
    )
    (outcome,) = run(write, toy_release, text).outcomes
    assert (outcome.verdict, outcome.raw_verdict, outcome.waiver.approved_by) == ("waived", "fail", "DPO")


def test_waiver_of_a_passing_rule_is_listed_as_unused(toy_metric, write, toy_release):
    text = TOY_POLICY.replace("fail_above: 0.9, warn_above: 0.6", "fail_above: 0.95") + (
        "waivers:\n  - {rule: male-share, reason: accepted, approved_by: DPO, expires: 2099-01-01}\n"
    )
    result = run(write, toy_release, text)
    assert result.outcomes[0].verdict == "pass" and result.unused_waivers == ["male-share"]


def test_needs_of_a_batching_intermediate_are_grouped_only_with_several_workers():
    from policycheck.metrics.base import Need
    from policycheck.runner import _groups

    original = Need.of("reconstruction_attacks", records="original", secret="s")
    control = Need.of("reconstruction_attacks", records="holdout", secret="s")
    dcr = Need.of("gower_dcr", synthetic=0)
    assert _groups([original, dcr, control], parallel=True) == [[original, control], [dcr]]
    assert _groups([original, dcr, control], parallel=False) == [[original], [dcr], [control]]
