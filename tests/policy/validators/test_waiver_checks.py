from conftest import TOY_POLICY
from contexts import context, lines

from policycheck.policy.validators.waivers import one_waiver_per_rule, waivers_name_rules, waivers_not_expired


def waived(*waivers):
    return TOY_POLICY + "waivers:\n" + "".join(f"  - {{{w}, reason: r, approved_by: DPO}}\n" for w in waivers)


def test_a_waiver_naming_no_rule_is_placed_at_its_rule_with_the_nearest_id(toy_metric, write):
    ctx = context(write("p.yaml", waived("rule: male-shar, expires: 2099-01-01")))
    # Line 9: `  - {rule: male-shar` puts the key rule at column 6.
    assert lines(waivers_name_rules(ctx)) == [
        "p.yaml:9:6: waiver names unknown rule 'male-shar' (did you mean 'male-share'?)"
    ]


def test_a_second_waiver_of_one_rule_is_refused_and_the_first_kept(toy_metric, write):
    ctx = context(
        write("p.yaml", waived("rule: male-share, expires: 2099-01-01", "rule: male-share, expires: 2099-06-01"))
    )
    assert lines(one_waiver_per_rule(ctx)) == ["p.yaml:10:6: rule 'male-share' has more than one waiver"]


def test_a_waiver_expired_before_the_day_of_the_check_is_refused(toy_metric, write):
    # The day of these tests is 2026-03-01: the day before it has passed, the day itself has not.
    # Line 9: `  - {rule: male-share, expires:` puts the key expires at column 24.
    ctx = context(
        write("p.yaml", waived("rule: male-share, expires: 2026-02-28", "rule: male-share, expires: 2026-03-01"))
    )
    assert lines(waivers_not_expired(ctx)) == [
        "p.yaml:9:24: waiver for rule 'male-share' expired on 2026-02-28: renew it or remove it"
    ]


def test_a_waiver_with_an_empty_reason_is_still_checked_for_the_rule_it_names(toy_metric, write):
    text = TOY_POLICY + "waivers:\n  - {rule: male-shar, reason: '', approved_by: DPO, expires: 2099-01-01}\n"
    assert lines(waivers_name_rules(context(write("p.yaml", text)))) == [
        "p.yaml:9:6: waiver names unknown rule 'male-shar' (did you mean 'male-share'?)"
    ]


def test_a_waiver_with_an_empty_reason_still_counts_as_its_rules_first_waiver(toy_metric, write):
    text = TOY_POLICY + (
        "waivers:\n"
        "  - {rule: male-share, reason: '', approved_by: DPO, expires: 2099-01-01}\n"
        "  - {rule: male-share, reason: r, approved_by: DPO, expires: 2099-01-01}\n"
    )
    assert lines(one_waiver_per_rule(context(write("p.yaml", text)))) == [
        "p.yaml:10:6: rule 'male-share' has more than one waiver"
    ]
