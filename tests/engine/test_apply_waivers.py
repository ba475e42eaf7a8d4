import datetime as dt
from types import SimpleNamespace

from policycheck.engine.outcome import RuleOutcome
from policycheck.engine.verdicts import Judgement, Verdict
from policycheck.engine.waivers import apply_waivers, unused_waivers
from policycheck.policy.model import Waiver


def outcome(rule_id, verdict):
    return RuleOutcome(SimpleNamespace(rule=SimpleNamespace(id=rule_id)), Judgement(verdict, 0.5))


def waiver(rule_id):
    return Waiver(rule=rule_id, reason="accepted", approved_by="DPO", expires=dt.date(2099, 1, 1))


def test_a_waiver_accepts_a_failing_rule_and_keeps_the_verdict_before_it():
    (waived,) = apply_waivers([outcome("a", Verdict.FAIL)], [waiver("a")])
    assert (waived.verdict, waived.raw_verdict, waived.waiver.approved_by) == (Verdict.WAIVED, Verdict.FAIL, "DPO")


def test_a_waiver_leaves_a_passing_rule_alone_and_is_listed_as_unused():
    waivers = [waiver("a")]
    settled = apply_waivers([outcome("a", Verdict.PASS)], waivers)
    assert (settled[0].verdict, unused_waivers(settled, waivers)) == (Verdict.PASS, ("a",))


def test_an_error_is_never_waived():
    errored = RuleOutcome.failed(SimpleNamespace(rule=SimpleNamespace(id="a")), "broke", "warn")
    (after,) = apply_waivers([errored], [waiver("a")])
    assert after.verdict == Verdict.ERROR


def test_a_waiver_for_another_rule_changes_nothing():
    given = outcome("a", Verdict.INCONCLUSIVE)
    assert apply_waivers([given], [waiver("b")]) == (given,)
