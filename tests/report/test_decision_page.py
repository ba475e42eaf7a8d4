"""The decision page in words (report/decision.py): which set decided, at which confidence, and what a pass means.

The two-set release is the Adult extract's first 300 training records released twice: as independent
histograms ('a': almost no record is copied) and as themselves ('b': every record is a copy). The
exact-copies rule takes the worst of the two sets, each interval at the Bonferroni level 1 - 0.05 / 2 =
97.5%, so set 'b' decides it and every label says 97.5%, never 95%.
"""

import re

import numpy as np
import pandas as pd
import pytest
from conftest import DEMO

import policycheck as pc
from policycheck.methods.synthesizers import BUILTIN
from policycheck.report import decision
from policycheck.report.formatting import detail_value, fmt
from policycheck.report.render import render_html, render_markdown
from policycheck.report.summary import summarize_rules

COLUMNS = ["age", "sex", "race", "education", "income"]
POLICY = """\
metadata: {id: two-sets, title: Two sets, version: "1", owner: tests}
attacker: {model: maximum-knowledge, quasi_identifiers: [age, sex, race, education], secrets: [income]}
seed: 5
rules:
  - id: exact-copies
    metric: exact_copy_share
    threshold: {fail_above: 0.01, warn_above: 0.001}
"""


@pytest.fixture(scope="module")
def two_set_report(tmp_path_factory):
    read = {"keep_default_na": False, "na_values": [""]}
    original = pd.read_csv(DEMO / "adult_training.csv", **read)[COLUMNS].head(300)
    holdout = pd.read_csv(DEMO / "adult_holdout.csv", **read)[COLUMNS].head(300)
    safe = BUILTIN["indhist"](original, 300, np.random.default_rng(1))
    path = tmp_path_factory.mktemp("two") / "p.yaml"
    path.write_text(POLICY)
    release = pc.Release(original=original, synthetic={"a": safe, "b": original.copy()}, holdout=holdout, id="two")
    return pc.check(pc.load_policy(path), release, executor="serial", progress=False)


def test_a_two_set_release_names_set_b_as_the_one_that_fails_it(two_set_report):
    rule = two_set_report.data["rules"][0]
    assert rule["verdict"] == "fail" and decision.worst_set(rule) == "b"
    frame = two_set_report.to_frame()
    assert frame.loc[0, "worst_set"] == "b"


def test_a_two_set_release_labels_its_bound_97_5_percent_everywhere(two_set_report):
    report = two_set_report.data
    rule = report["rules"][0]
    assert decision.interval_level(rule) == 0.975 and two_set_report.to_frame().loc[0, "interval_level"] == 0.975
    page1 = render_html(report).split('<section id="signoff">', 1)[0]
    failure = re.search(r"<h3>Why the release fails</h3>(.*?)</ul>", page1, re.S).group(1)
    assert "97.5% interval" in failure and "95% interval" not in failure
    assert "Synthetic set &#39;b&#39; decided it" in failure
    md = render_markdown(report)
    assert "97.5% interval" in md and "Synthetic set 'b' decided it" in md
    assert re.search(r"\| `exact-copies` \|.*\] at 97\.5% \|.*\| b \|", md)


def test_page_one_says_what_a_pass_does_not_guarantee_and_what_to_ensure(two_set_report):
    page1 = render_html(two_set_report.data).split('<section id="signoff">', 1)[0]
    assert (
        "What a PASS does not guarantee" in page1
        and "not refuted by this test: that is not the same as verified" in page1
    )
    assert "Assumptions the signer must ensure" in page1
    assert "holdout records were split at random" in page1
    assert "each measured risk is a lower bound on what its attacker could achieve" in page1


def _rule(**overrides):
    rule = {
        "id": "r",
        "metric": "m",
        "family": "membership",
        "severity": "blocking",
        "verdict": "pass",
        "verdict_before_waiver": None,
        "value": 0.00656,
        "interval": [-0.118, 0.1196],
        "confidence": 0.95,
        "decided_on": "estimate",
        "unsettled": None,
        "threshold": {"fail_above": 0.1, "warn_above": None, "fail_below": None, "warn_below": None},
        "details": {},
        "meaning": "How much better than guessing an attacker does (0 is a guess). More words.",
        "knowledge_words": ["every released synthetic set"],
    }
    rule["threshold"]["compare"] = "estimate"
    rule.update(overrides)
    return rule


def test_a_pass_on_the_estimate_whose_interval_reaches_past_the_fail_level_is_not_settled():
    # the case: 0.00656 [-0.118, 0.1196] against "fail if > 0.1" passed with nothing said
    rule = _rule()
    assert decision.reaches_past_fail(rule)
    words = decision.unsettled_words(rule)
    assert "[-0.118, 0.1196] reaches above the fail level 0.1" in words
    assert not decision.reaches_past_fail(_rule(interval=[-0.05, 0.09]))


def test_a_pass_whose_interval_is_not_of_its_value_is_not_told_that_deciding_on_the_interval_would_settle_it():
    rule = _rule(value=0.0, interval=[0.0, 2.8], interval_of="this attack's excess over the claim; more words")
    rule["threshold"]["fail_above"] = 0.0
    assert decision.unsettled_words(rule) == (
        "passes on estimate (compare: estimate), but its interval [0, 2.8] of this attack's excess over the claim "
        "reaches above the fail level 0: a larger sample could show the value beyond it. Deciding on the interval "
        "(compare: interval) would not settle it: the interval is not of the value"
    )


def test_the_sentence_of_a_failure_is_words_with_the_end_that_decided():
    rule = _rule(verdict="fail", value=0.8688, interval=[0.8622, 0.8745], decided_on="interval")
    rule["threshold"] = {"fail_above": 0.2, "compare": "interval"}
    assert decision.plain_sentence(rule) == (
        "How much better than guessing an attacker does: measured 0.8688 (95% interval 0.8622 to 0.8745); even the "
        "lowest value the interval allows, 0.8622, is above the fail level 0.2."
    )


def test_a_rule_that_uses_less_than_the_policys_attacker_says_why():
    report = {"policy": {"attacker_model": "maximum-knowledge", "attacker_knowledge": ["A", "B"]}}
    words = decision.knowledge_words({"knowledge_words": ["A"]}, report)
    assert words.startswith("A. Not B: the attack is defined for this knowledge only")
    assert (
        decision.knowledge_words({"knowledge_words": ["A", "B"]}, report)
        == "A; B: all the maximum-knowledge attacker knows"
    )


def test_papers_are_cited_by_name_not_number():
    assert decision.cite("paper 002, sec. 4") == "Clearbox AI, Privacy evaluation [002], sec. 4"
    assert decision.cite("paper 000, sec. 3.1") == "Ruiz, Muralidhar and Domingo-Ferrer 2018 [000], sec. 3.1"


def test_the_demo_effect_shows_only_on_the_release_it_was_measured_on():
    effect = {"demo": [{"release": "nonprivate", "ours": 0.8688, "theirs": 0.12}]}
    assert decision.effects_here(effect, {"release": {"id": "adult-demo-nonprivate"}}) == effect["demo"]
    assert decision.effects_here(effect, {"release": {"id": "nhanes-2025"}}) == []


def test_numbers_print_one_way_a_seed_as_written_and_delta_without_trailing_zeros():
    assert fmt(1e-05) == "1e-05" and fmt(1.5e-05) == "1.5e-05"
    assert detail_value(20261121, "seed", {"format": "count"}) == "20261121"
    assert detail_value(3000, "records", {"format": "count", "unit": "records"}) == "3,000 records"


def _scope_report(*roles):
    """A report dict with what decision.scope reads: one data set of each role, 3,000 records each."""
    return {
        "release": {"id": "r", "datasets": [{"role": role, "name": role, "rows": 3000} for role in roles]},
        "policy": {"attacker_model": "no-box", "attacker_knowledge": ["every released synthetic set"]},
        "provenance": {"confidence": 0.95, "seed": 0, "effective_policy": {}},
    }


def test_the_scope_lists_the_holdout_as_the_control_not_as_data_protected():
    words = decision.scope(_scope_report("original", "holdout", "synthetic"))
    assert words["Data protected"] == "the original data 'original' (3,000 records)"
    assert words["Control"] == (
        "the holdout 'holdout' (3,000 records), real records the synthesizer never saw: the attacks' baseline"
    )


def test_the_scope_counts_people_where_an_id_column_names_them():
    report = _scope_report("original", "holdout", "synthetic")
    report["release"]["person_key"] = "nr"
    for dataset in report["release"]["datasets"][:2]:
        dataset["people"] = 375  # eight records a person
    words = decision.scope(report)
    assert words["Data protected"] == (
        "the original data 'original' (3,000 records of 375 people), people named by id column 'nr'"
    )
    assert words["Control"].startswith("the holdout 'holdout' (3,000 records of 375 people), real records")


def test_a_release_without_a_holdout_has_no_control_in_its_scope():
    assert "Control" not in decision.scope(_scope_report("original", "synthetic"))


def _coverage_report(rules, model="no-box", synthesizer=None):
    """A report dict with what decision.untested reads: the rules' families and needs, the sets' claims."""
    return {
        "policy": {"attacker_model": model},
        "rules": rules,
        "release": {"datasets": [{"role": "synthetic", "name": "s", "synthesizer": synthesizer}]},
    }


def _needing(rule_id, metric, family, need):
    return {"id": rule_id, "metric": metric, "family": family, "needs": [need]}


DCR = "gower_dcr(synthetic=0)"
GAME = "membership_game(columns=none, repetitions=200, synthesizer=release)"


def test_release_level_membership_rules_alone_say_that_no_rule_attacks_single_records():
    rules = [_needing("dcr-share", "dcr_share", "membership", DCR), _needing("mi-risk", "mi_risk", "membership", DCR)]
    assert decision.untested(_coverage_report(rules)) == [
        "No rule attacks single records: dcr-share, mi-risk measure the release as a whole, and such tests pass "
        'releases that expose a few records (Yao et al., "The DCR Delusion", 2025). A membership_inference_advantage '
        "rule plays the membership game against the records most at risk, re-running the synthesizer (its attacker "
        "knows the original records: maximum-knowledge)."
    ]


def test_a_release_level_membership_measure_of_another_family_is_named_by_its_metrics_mark():
    rules = [
        {**_needing("exact-copies", "exact_copy_share", "membership", DCR), "release_level_membership": True},
        {**_needing("dcr-baseline", "dcr_baseline_protection", "sdmetrics", DCR), "release_level_membership": True},
        {**_needing("tcap", "tcap", "synthpop", "tcap_scores"), "release_level_membership": False},
    ]
    (gap,) = decision.untested(_coverage_report(rules))
    assert gap.startswith("No rule attacks single records: exact-copies, dcr-baseline measure the release as a whole")


def test_a_policy_that_plays_the_membership_game_leaves_nothing_untested():
    rules = [
        _needing("dcr-share", "dcr_share", "membership", DCR),
        _needing("game", "membership_inference_advantage", "membership", GAME),
    ]
    assert decision.untested(_coverage_report(rules, model="maximum-knowledge")) == []


def test_a_game_need_labelled_without_parameters_still_attacks_single_records():
    # Need.label drops the parentheses of a Need without parameters: the game is still the game.
    rules = [
        _needing("dcr-share", "dcr_share", "membership", DCR),
        _needing("game", "membership_inference_advantage", "membership", "membership_game"),
    ]
    assert decision.untested(_coverage_report(rules, model="maximum-knowledge")) == []


def test_a_declared_epsilon_tested_on_the_release_only_says_the_claim_is_not_audited_by_attack():
    rules = [
        _needing("dp-claim", "dp_epsilon_excess_membership", "dp", DCR),
        _needing("game", "membership_inference_advantage", "membership", GAME),
    ]
    gaps = decision.untested(_coverage_report(rules, synthesizer={"epsilon": 1.0}))
    assert gaps == [
        "Synthetic set 's' (epsilon 1) declares differential privacy, and dp-claim tests the claim on this release "
        "only: a claim is audited by attacking the synthesizer itself, not one release of it (Annamalai, Ganev and "
        "De Cristofaro, USENIX Security 2024). A dp_epsilon_excess_membership rule with test: game plays the "
        "membership game against it (dp_epsilon_excess_attribute, the attribute game)."
    ]


def test_a_declared_epsilon_that_no_rule_tests_says_so():
    rules = [_needing("game", "membership_inference_advantage", "membership", GAME)]
    gaps = decision.untested(_coverage_report(rules, synthesizer={"epsilon": 0.5}))
    assert gaps[0].startswith(
        "Synthetic set 's' (epsilon 0.5) declares differential privacy, and no rule tests the claim:"
    )


@pytest.mark.parametrize(
    ("metric", "game"),
    [
        ("dp_epsilon_excess_membership", GAME),
        ("dp_epsilon_excess_attribute", "attribute_inference_game(attack=lp, repetitions=100, secret=income)"),
    ],
)
def test_a_declared_epsilon_audited_by_a_game_that_reruns_the_synthesizer_is_not_listed(metric, game):
    rules = [_needing("dp-claim-game", metric, "dp", game)]
    assert decision.untested(_coverage_report(rules, synthesizer={"epsilon": 1.0})) == []


def test_page_one_the_markdown_and_the_summary_say_what_the_policy_does_not_test(two_set_report, capsys):
    from policycheck.interfaces.cli.summary import print_summary

    report = two_set_report.data
    gap = "No rule attacks single records: exact-copies measures the release as a whole"
    page1 = render_html(report).split('<section id="signoff">', 1)[0]
    assert "<h3>Not tested by this policy</h3>" in page1 and gap in page1
    top = render_markdown(report).split("<details>", 1)[0]
    assert f"**Not tested by this policy**: {gap}" in top
    print_summary(report)
    assert f"  not tested: {gap}" in capsys.readouterr().out


def test_the_sentence_of_an_excess_gives_the_measure_and_its_baseline_before_the_excess():
    # The meaning names the measure (a share), so the share comes first: DiSCO 0.1803 against the holdout's 0.1777.
    rule = _rule(verdict="warn", value=0.0026, raw=0.1803, baseline=0.1777, interval=[-0.0251, 0.0304])
    assert decision.plain_sentence(rule).startswith(
        "How much better than guessing an attacker does: measured 0.1803 against 0.1777 for its baseline, an excess "
        "of 0.0026 (95% interval -0.0251 to 0.0304)"
    )


def test_exact_key_rules_that_do_not_fail_on_keys_they_cannot_match_are_named_on_the_first_page():
    report = {
        "policy": {"attacker_model": "partially-informed"},
        "release": {"datasets": []},
        "rules": [
            _rule(id="repu", metric="replicated_uniques", family="synthpop", details={"unmatched_keys": {"lpi": 0.0}}),
            _rule(id="tcap", metric="tcap", family="synthpop", details={"unmatched_keys": {"lpi": 0.0, "age": 0.3}}),
            _rule(
                id="disco", metric="disco", family="synthpop", verdict="fail", details={"unmatched_keys": {"x": 0.1}}
            ),
        ],
    }
    assert decision.untested_gaps(report) == [
        decision.Gap(
            "keys-not-matched",
            "repu, tcap look keys up by exact value, and the synthetic data rarely repeats the values of lpi (0%), "
            "age (30%) of the original records: few of them can be matched, so they test little of this release. "
            "Round or group such keys, or choose categorical keys, for these rules to measure disclosure.",
        )
    ]


def test_exact_key_rules_whose_keys_match_leave_no_gap():
    report = {
        "policy": {"attacker_model": "partially-informed"},
        "release": {"datasets": []},
        "rules": [_rule(id="tcap", metric="tcap", family="synthpop", details={"unmatched_keys": {}})],
    }
    assert decision.untested_gaps(report) == []


def test_page_one_and_the_markdown_carry_what_loading_found_in_the_data(two_set_report):
    finding = "synthetic set 'b' holds no value in column 'age' (empty in all 10 records): the release says nothing"
    report = {**two_set_report.data, "release": {**two_set_report.data["release"], "findings": [finding]}}
    page1 = render_html(report).split('<section id="signoff">', 1)[0]
    assert "<h3>Found in the data while loading</h3>" in page1 and finding.replace("'", "&#39;") in page1
    top = render_markdown(report).split("<details>", 1)[0]
    assert f"**Found in the data**: {finding}" in top


def test_each_markdown_finding_and_gap_is_a_paragraph_of_its_own(two_set_report):
    findings = ["synthetic set 'b' holds no value in column 'age'", "the holdout repeats 3 records of the original"]
    report = {**two_set_report.data, "release": {**two_set_report.data["release"], "findings": findings}}
    top = render_markdown(report).split("<details>", 1)[0]
    # Markdown joins lines that no blank line separates: each must stand apart from the counts line and the others.
    assert f"\n\n**Found in the data**: {findings[0]}\n\n**Found in the data**: {findings[1]}\n" in top


def test_the_decided_sentence_of_one_failing_rule_is_singular():
    rules = [{"id": "only", "verdict": "fail", "severity": "blocking"}]
    report = {"verdict": "fail", "policy": {"id": "p", "version": "1"}, "release": {"id": "r"}, "rules": rules}
    assert decision.decided_sentence(report, summarize_rules(rules, [])) == (
        "policycheck measured the 1 rule of policy 'p' v1 on release 'r'. The release fails: 1 blocking rule is "
        "beyond its fail level, so it should not be released as it is. This is the automated verdict; the decision "
        "to release is the signer's."
    )


def test_the_sign_off_block_gives_a_verify_command_that_works_for_a_report_in_a_subfolder(
    toy_metric, write, toy_release
):
    import shlex

    from click.testing import CliRunner
    from conftest import TOY_POLICY

    from policycheck.interfaces.cli import cli

    write("p.yaml", TOY_POLICY)
    runner = CliRunner()
    checked = runner.invoke(cli, ["check", "p.yaml", "-r", str(toy_release["manifest"]), "-o", "out/run1", "-q"])
    assert checked.exit_code == 0, checked.output
    html = open("out/run1/report.html", encoding="utf-8").read()
    command = "policycheck verify out/run1/report.json --root ."
    assert (
        "To confirm months later that this report matches its data and policy, run in the folder the check ran in: "
        f"<code>{command}</code> (re-hashes the files it names, re-runs the check).</p>"
    ) in html
    verified = runner.invoke(cli, [*shlex.split(command)[1:], "-q", "--executor", "serial"])
    assert verified.exit_code == 0, verified.output


def _verify_report(output_folder, data_path="data/original.csv"):
    report = {
        "provenance": {
            "working_directory": "/home/sdc/project",
            "policy_files": [{"path": "p.yaml", "sha256": "0"}],
            "data_files": [{"path": data_path, "sha256": "0"}],
            "manifest": None,
        }
    }
    if output_folder != "absent":
        report["provenance"]["output_folder"] = output_folder
    return report


def test_the_verify_command_says_root_is_needed_when_the_report_does_not_record_its_folder():
    assert decision.verify_command(_verify_report("absent")) == (
        "run with --root naming the folder the check ran in (/home/sdc/project there)",
        "policycheck verify PATH/report.json --root DIR",
    )


def test_the_verify_command_of_a_report_written_outside_the_check_s_folder_names_both_folders():
    assert decision.verify_command(_verify_report("/srv/reports/run 1")) == (
        "run with --root naming the folder the check ran in (wherever it is now)",
        "policycheck verify '/srv/reports/run 1/report.json' --root /home/sdc/project",
    )


def test_the_verify_command_of_a_report_naming_files_outside_the_check_s_folder_adds_show_external():
    assert decision.verify_command(_verify_report("out", "/srv/data/original.csv")) == (
        "run in the folder the check ran in; --show-external reads the files it names outside that folder",
        "policycheck verify out/report.json --root . --show-external",
    )


def test_the_verify_command_of_a_report_whose_check_ran_a_synthesizer_command_says_what_re_runs_it():
    report = _verify_report("out")
    report["provenance"]["synthesizer_files"] = [{"file": "synth.py", "sha256": "0"}]
    assert decision.verify_command(report) == (
        "run in the folder the check ran in; add --manifest MANIFEST, a manifest you trust, and --run-synthesizer "
        "to re-run the rules that ran the release's synthesizer command",
        "policycheck verify out/report.json --root .",
    )


SEEDED_POLICY = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}
seed: 20261121
rules:
  - id: male-share
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.9, warn_above: 0.6, compare: estimate}
"""

SEED_WORDS = (
    "7 (from --seed or the run's settings; the policy's seed is 20261121): the games and samples draw from it, "
    "and another seed can move a verdict near its level"
)


def test_a_seed_given_with_seed_is_on_the_decision_page_and_in_the_markdown_beside_the_policy_s(
    toy_metric, write, toy_release
):
    from click.testing import CliRunner

    from policycheck.interfaces.cli import cli

    write("p.yaml", SEEDED_POLICY)
    args = ["check", "p.yaml", "-r", str(toy_release["manifest"]), "-o", "out", "-q", "--seed", "7"]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    html = open("out/report.html", encoding="utf-8").read()
    assert f"<tr><th>Seed</th><td>{SEED_WORDS.replace(chr(39), '&#39;')}</td></tr>" in html
    assert f"- **Seed**: {SEED_WORDS}" in open("out/report.md", encoding="utf-8").read().splitlines()


def test_the_policy_s_own_seed_adds_no_seed_line(two_set_report):
    assert "Seed" not in decision.scope(two_set_report.data)


def test_a_seed_given_for_a_policy_naming_none_says_the_policy_names_none():
    report = {"provenance": {"seed": 7, "effective_policy": {"seed": None}}}
    assert decision.seed_override(report) == (
        "7 (from --seed or the run's settings; the policy names none): the games and samples draw from it, and "
        "another seed can move a verdict near its level"
    )
