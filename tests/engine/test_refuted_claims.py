from types import SimpleNamespace

from policycheck.engine.claims import fail_on_refuted_claims
from policycheck.engine.outcome import RuleOutcome
from policycheck.engine.verdicts import Judgement, Verdict
from policycheck.metrics.base import MetricResult
from policycheck.release.claims import Claim


def outcome(rule_id, verdict=Verdict.PASS, refutes=(), relies_on=()):
    evaluation = SimpleNamespace(rule=SimpleNamespace(id=rule_id))
    result = MetricResult(1.5, refutes=tuple(refutes), relies_on=tuple(relies_on))
    return RuleOutcome(evaluation, Judgement(verdict, 1.5, decided_on="estimate", decision="d"), result)


def test_a_rule_relying_on_a_claim_another_rule_refuted_fails_on_that_claim():
    claim = Claim.of_synthetic_set(0)
    audit, budget = fail_on_refuted_claims([outcome("audit", refutes=[claim]), outcome("budget", relies_on=[claim])])
    assert (audit.verdict, budget.verdict, budget.decided_on) == (Verdict.PASS, Verdict.FAIL, "refuted_claim")
    assert "the epsilon claim of synthetic[0], which rule 'audit' refuted" in budget.reason
    assert budget.measured == 1.5  # the number compared stays the rule's own


def test_the_outcomes_given_are_left_as_they_were():
    claim = Claim.of_synthetic_set(0)
    given = [outcome("audit", refutes=[claim]), outcome("budget", relies_on=[claim])]
    fail_on_refuted_claims(given)
    assert given[1].verdict == Verdict.PASS


def test_a_rule_refuting_the_claim_it_relies_on_keeps_its_own_verdict():
    claim = Claim.of_synthetic_set(1)
    (only,) = fail_on_refuted_claims([outcome("audit", Verdict.WARN, refutes=[claim], relies_on=[claim])])
    assert only.verdict == Verdict.WARN


def test_claims_are_matched_by_holder_and_quantity_not_by_set_alone():
    refuted, relied = Claim.of_synthetic_set(0), Claim.of_ledger("synthetic", 0)
    _, budget = fail_on_refuted_claims([outcome("audit", refutes=[refuted]), outcome("budget", relies_on=[relied])])
    assert budget.verdict == Verdict.PASS


def test_a_rule_that_errored_stays_an_error():
    claim = Claim.of_synthetic_set(0)
    errored = RuleOutcome.failed(SimpleNamespace(rule=SimpleNamespace(id="budget")), "broke", "warn")
    _, after = fail_on_refuted_claims([outcome("audit", refutes=[claim]), errored])
    assert (after.verdict, after.error) == (Verdict.ERROR, "broke")
