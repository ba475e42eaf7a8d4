"""JUnit XML for CI: one test case per rule, failures and warnings told apart.

No JUnit XSD can be shipped, so the tests check the de facto Ant/Jenkins
structure element by element with xml.etree.
"""

import json
import xml.etree.ElementTree as ET

import pytest

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.release.load import load_manifest
from policycheck.report.junit import render_junit

MIXED = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}
rules:
  - id: passes
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.9, compare: estimate}
  - id: warns
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.9, warn_above: 0.6, compare: estimate}
  - id: fails
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.5, compare: estimate}
  - id: advisory-fails
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.5, compare: estimate}
    severity: advisory
  - id: waived
    metric: toy_share
    params: {column: sex, value: Male}
    threshold: {fail_above: 0.5, compare: estimate}
  - id: errors
    metric: toy_share
    params: {column: sex, value: Male, explode: true}
    threshold: {fail_above: 0.5, compare: estimate}
waivers:
  - {rule: waived, reason: "Accepted <b>for</b> the pilot", approved_by: Jane Roe, expires: 2099-12-31, ticket: PRIV-1}
"""


@pytest.fixture
def report(toy_metric, write, toy_release, tmp_path):
    """Every rule verdict once: the toy share of Male is 5/6 = 0.8333."""
    release = load_manifest(toy_release["manifest"])
    return check_release(write("p.yaml", MIXED), release, tmp_path / "out", CheckOptions(executor="serial", seed=3))


def parse(report) -> ET.Element:
    return ET.fromstring(render_junit(report).encode("utf-8"))


def cases(root) -> dict[str, ET.Element]:
    return {c.get("name"): c for c in root.iter("testcase")}


def props(el) -> dict[str, str]:
    return {p.get("name"): p.get("value") for p in el.find("properties").iter("property")}


def test_junit_has_the_ant_jenkins_structure(report):
    root = parse(report)
    assert root.tag == "testsuites"
    (suite,) = root.findall("testsuite")
    for attr in ("name", "tests", "failures", "errors", "skipped", "time", "timestamp"):
        assert suite.get(attr) is not None, attr
    assert suite.get("timestamp") == report["generated_at"][:19]
    for case in suite.findall("testcase"):
        assert case.get("name") and case.get("classname") == "toy" and float(case.get("time")) >= 0
    assert [c.get("name") for c in suite.findall("testcase")] == [
        "passes",
        "warns",
        "fails",
        "advisory-fails",
        "waived",
        "errors",
    ]


def test_suite_properties_carry_tool_version_policy_hash_and_seed(report):
    suite = parse(report).find("testsuite")
    p = props(suite)
    assert p["tool_version"] == report["provenance"]["tool_version"]
    assert p["policy_sha256"] == report["provenance"]["policy_files"][0]["sha256"] and len(p["policy_sha256"]) == 64
    assert p["seed"] == "3"
    assert p["verdict"] == "error" and p["exit_code"] == "3"


def test_counts_match_the_outcomes(report):
    root = parse(report)
    suite = root.find("testsuite")
    # fails -> failure; errors -> error; waived -> skipped; the other three pass in CI terms.
    assert (suite.get("tests"), suite.get("failures"), suite.get("errors"), suite.get("skipped")) == (
        "6",
        "1",
        "1",
        "1",
    )
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("6", "1", "1", "1")


def test_a_blocking_fail_is_a_failure_with_the_measurement(report):
    (failure,) = cases(parse(report))["fails"].findall("failure")
    assert failure.get("type") == "fail"
    assert (
        failure.get("message") == "fails: measured 0.8333 [0.3588, 0.9958]; threshold: fail if > 0.5 (on the estimate)"
    )
    assert failure.text == "Change the synthesizer."


def test_an_evaluator_error_is_an_error_element(report):
    case = cases(parse(report))["errors"]
    (error,) = case.findall("error")
    assert error.text == "the toy evaluator was told to fail"
    assert case.find("failure") is None


def test_a_waived_rule_is_skipped_with_its_waiver(report):
    case = cases(parse(report))["waived"]
    (skipped,) = case.findall("skipped")
    assert skipped.get("message") == "waived by Jane Roe until 2099-12-31: Accepted <b>for</b> the pilot"
    assert case.find("failure") is None


def test_warnings_are_not_failures_but_say_so(report):
    found = cases(parse(report))
    for name, verdict in (("warns", "warn"), ("advisory-fails", "fail"), ("passes", "pass")):
        case = found[name]
        assert case.find("failure") is None and case.find("error") is None and case.find("skipped") is None
        assert props(case)["verdict"] == verdict
    assert "verdict: warn (blocking rule)" in found["warns"].find("system-out").text
    assert "verdict: fail (advisory rule)" in found["advisory-fails"].find("system-out").text
    assert "verdict: pass (blocking rule)" in found["passes"].find("system-out").text


def test_rule_properties_hold_value_interval_and_threshold(report):
    p = props(cases(parse(report))["warns"])
    assert float(p["value"]) == pytest.approx(5 / 6)
    assert float(p["interval_lower"]) < 5 / 6 < float(p["interval_upper"])
    assert p["threshold"] == "fail if > 0.9, warn if > 0.6 (on the estimate)"
    assert p["policy_location"] == "p.yaml:8"


def test_fail_on_warn_turns_warnings_into_failures(report):
    # A release whose worst outcome is a warning, run with --fail-on-warn.
    warned = json.loads(json.dumps(report))
    warned["rules"] = [r for r in warned["rules"] if r["id"] in ("passes", "warns", "advisory-fails")]
    warned.update(verdict="warn", exit_code=1)
    warned["provenance"]["fail_on_warn"] = True
    found = cases(parse(warned))
    assert found["warns"].find("failure").get("type") == "warning"
    assert found["advisory-fails"].find("failure").get("type") == "warning"
    assert found["passes"].find("failure") is None
    warned["exit_code"] = 0
    warned["provenance"]["fail_on_warn"] = False
    assert parse(warned).find("testsuite").get("failures") == "0"


def test_markup_and_control_characters_from_the_data_stay_well_formed(report):
    hostile = json.loads(json.dumps(report))
    hostile["rules"][5]["error"] = "column '<script>\x01&' is odd"
    hostile["policy"]["id"] = 'a"b'
    text = render_junit(hostile)
    root = ET.fromstring(text.encode("utf-8"))  # well-formed despite \x01
    assert cases(root)["errors"].find("error").text == "column '<script>\ufffd&' is odd"
    assert "<script>" not in text


def test_what_the_policy_leaves_untested_is_a_suite_property_and_a_line_of_its_output(report):
    changed = json.loads(json.dumps(report))
    changed["rules"][0]["release_level_membership"] = True  # 'passes' counted a release-level membership rule
    single_records = (
        "No rule attacks single records: passes measures the release as a whole, and such tests pass releases that "
        'expose a few records (Yao et al., "The DCR Delusion", 2025). A membership_inference_advantage rule plays '
        "the membership game against the records most at risk, re-running the synthesizer (its attacker knows the "
        "original records: maximum-knowledge)."
    )
    suite = parse(changed).find("testsuite")
    assert props(suite)["not_tested:single-records"] == single_records
    # The toy release declares epsilon 1 and no rule tests it: the second gap, after the first.
    assert props(suite)["not_tested:dp-claim-not-attacked"].startswith(
        "Synthetic set 'synthetic[0]' (epsilon 1) declares differential privacy, and no rule tests the claim:"
    )
    assert f"\nnot tested: {single_records}\nnot tested: Synthetic set " in suite.find("system-out").text


def test_a_policy_that_leaves_nothing_untested_adds_no_property(report):
    claimless = json.loads(json.dumps(report))
    for dataset in claimless["release"]["datasets"]:
        dataset["synthesizer"] = None
    suite = parse(claimless).find("testsuite")
    assert not [name for name in props(suite) if name.startswith("not_tested")]
    assert "not tested" not in suite.find("system-out").text
