"""`policycheck demo` on the shipped real data gives the expected verdicts."""

import json

import pytest
from click.testing import CliRunner

from policycheck.cli import cli

PRIVACY_RULES = ("dcr-share", "mi-risk", "exact-copies", "income-inference", "age-narrowing", "dp-claim")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    result = CliRunner().invoke(cli, ["demo", "-o", str(out), "-q"], catch_exceptions=False)
    reports = {name: json.loads((out / name / "report.json").read_text()) for name in ("nonprivate", "indhist")}
    return result, reports


def verdicts(report):
    return {r["id"]: r["verdict"] for r in report["rules"]}


def test_demo_exits_0_and_prints_both_verdicts(demo):
    result, _ = demo
    assert result.exit_code == 0
    assert "nonprivate  FAIL" in result.output and "indhist     WARN" in result.output


def test_nonprivate_release_fails_every_privacy_rule(demo):
    _, reports = demo
    assert reports["nonprivate"]["verdict"] == "fail"
    assert {rule: verdicts(reports["nonprivate"])[rule] for rule in PRIVACY_RULES} == dict.fromkeys(PRIVACY_RULES, "fail")


def test_indhist_release_passes_every_privacy_rule(demo):
    _, reports = demo
    assert {rule: verdicts(reports["indhist"])[rule] for rule in PRIVACY_RULES} == dict.fromkeys(PRIVACY_RULES, "pass")


def test_indhist_pays_for_privacy_in_utility(demo):
    _, reports = demo
    tvd = {name: next(r for r in rep["rules"] if r["id"] == "marginal-fidelity") for name, rep in reports.items()}
    assert tvd["indhist"]["verdict"] == "warn" and tvd["indhist"]["value"] > 3 * tvd["nonprivate"]["value"]


def test_membership_numbers_are_those_of_the_recorded_seed(demo):
    _, reports = demo
    rules = {r["id"]: r for r in reports["nonprivate"]["rules"]}
    assert reports["nonprivate"]["provenance"]["seed"] == 20261121
    assert rules["dcr-share"]["value"] == 1.0
    assert rules["mi-risk"]["value"] == pytest.approx(0.8688, abs=1e-4)
