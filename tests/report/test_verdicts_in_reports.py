"""Every verdict kind, inconclusive included, counted alike in report.json, HTML, Markdown, JUnit and SARIF;
and the observed rate, baseline and excess shown side by side."""

import json
import re
import xml.etree.ElementTree as ET

import pytest
from conftest import registered_toy_metric
from pydantic import Field

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.interfaces.cli.summary import print_summary
from policycheck.metrics.base import MetricResult
from policycheck.metrics.registry import Params
from policycheck.release.load import load_manifest
from policycheck.report.junit import render_junit
from policycheck.report.render import render_html, render_markdown
from policycheck.report.sarif import build_sarif

# The toy share of Male is 5/6 = 0.8333, Clopper-Pearson 95% interval [0.3588, 0.9958].
EVERY_VERDICT = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box, quasi_identifiers: [sex], secrets: [income]}
rules:
  - {id: passes, metric: toy_share, params: {column: sex, value: Male}, threshold: {fail_above: 0.9, compare: estimate}}
  - {id: warns, metric: toy_share, params: {column: sex, value: Male},
     threshold: {fail_above: 0.9, warn_above: 0.6, compare: estimate}}
  - {id: fails, metric: toy_share, params: {column: sex, value: Male}, threshold: {fail_above: 0.5, compare: estimate}}
  - {id: advisory-fails, metric: toy_share, params: {column: sex, value: Male},
     threshold: {fail_above: 0.5, compare: estimate}, severity: advisory}
  - {id: inconclusive-warns, metric: toy_share, params: {column: sex, value: Male},
     threshold: {fail_above: 0.9, compare: upper}}
  - {id: inconclusive-fails, metric: toy_share, params: {column: sex, value: Male},
     threshold: {fail_above: 0.9, compare: upper}, on_inconclusive: fail}
  - {id: waived, metric: toy_share, params: {column: sex, value: Male}, threshold: {fail_above: 0.5, compare: estimate}}
  - {id: errors, metric: toy_share, params: {column: sex, value: Male, explode: true},
     threshold: {fail_above: 0.5, compare: estimate}}
waivers:
  - {rule: waived, reason: pilot, approved_by: Jane Roe, expires: 2099-12-31}
"""


@pytest.fixture
def report(toy_metric, write, toy_release, tmp_path):
    release = load_manifest(toy_release["manifest"])
    return check_release(
        write("p.yaml", EVERY_VERDICT),
        release,
        tmp_path / "out",
        CheckOptions(executor="serial", seed=3),
        formats=("json",),
    )


def test_summary_counts_every_verdict_kind(report):
    s = report["summary"]
    assert (s["total"], s["passed"], s["warned"], s["failed"], s["inconclusive"], s["waived"], s["errors"]) == (
        8,
        1,
        1,
        2,
        2,
        1,
        1,
    )
    assert s["blocking_failures"] == ["fails", "inconclusive-fails"]
    assert s["warnings"] == ["warns", "advisory-fails", "inconclusive-warns"]
    assert s["inconclusive_rules"] == ["inconclusive-warns", "inconclusive-fails"]


# By hand from EVERY_VERDICT: one rule of each kind but two inconclusive ones.
EXPECTED = {"blocking_fail": 1, "advisory_fail": 1, "warn": 1, "inconclusive": 2, "waived": 1, "pass": 1, "error": 1}
COUNTS_LINE = (
    "8 rules: blocking failures 1, advisory failures 1, warned 1, inconclusive 2, waived 1, passed 1, errors 1"
)


def test_report_json_summary_counts_blocking_and_advisory_failures_apart(report):
    s = report["summary"]
    assert (s["blocking_failed"], s["advisory_failed"], s["failed"]) == (1, 1, 2)


def test_every_format_counts_every_verdict_kind_alike(report, capsys):
    s = report["summary"]
    assert {
        "blocking_fail": s["blocking_failed"],
        "advisory_fail": s["advisory_failed"],
        "warn": s["warned"],
        "inconclusive": s["inconclusive"],
        "waived": s["waived"],
        "pass": s["passed"],
        "error": s["errors"],
    } == EXPECTED

    html = render_html(report)
    tiles = {kind: int(n) for kind, n in re.findall(r'<div class="c-(\w+)"><b>(\d+)</b>', html)}
    assert tiles == EXPECTED
    headings = dict(re.findall(r"<h3>([A-Z][a-z ]+) \((\d+)\)</h3>", html))
    assert headings == {
        "Not evaluated": "1",
        "Blocking failures": "1",
        "Inconclusive": "2",
        "Advisory failures": "1",
        "Warned": "1",
        "Waived rules": "1",
        # the two inconclusive rules, and 'passes' and 'warns': decided on the estimate (0.6667 of 6
        # records), each passes or warns with an interval reaching above its fail level 0.9
        "Not settled by this sample": "4",
    }
    assert COUNTS_LINE in html  # the sign-off block

    md = render_markdown(report)
    assert COUNTS_LINE + "." in md
    assert "Advisory failures: `advisory-fails`." in md and "Warned: `warns`." in md

    print_summary(report)
    assert COUNTS_LINE in capsys.readouterr().out

    root = ET.fromstring(render_junit(report).encode())
    props = {p.get("name"): p.get("value") for p in root.find("testsuite/properties")}
    assert {k: int(props[f"count:{k}"]) for k in EXPECTED} == EXPECTED
    cases = list(root.iter("testcase"))
    elements = {tag: sum(c.find(tag) is not None for c in cases) for tag in ("failure", "error", "skipped")}
    # failures: the blocking fail and the inconclusive rule under on_inconclusive: fail; skipped: waived and the
    # other inconclusive rule.
    assert elements == {"failure": 2, "error": 1, "skipped": 2}
    assert (root.get("tests"), root.get("failures"), root.get("errors"), root.get("skipped")) == ("8", "2", "1", "2")

    run = build_sarif(report)["runs"][0]
    assert run["properties"]["counts"] == EXPECTED
    assert len(run["results"]) == 8 - EXPECTED["pass"] - EXPECTED["error"]
    assert len(run["invocations"][0]["toolExecutionNotifications"]) == EXPECTED["error"]


def test_markdown_and_html_show_which_inconclusive_rule_fails_the_release(report):
    md = render_markdown(report)
    assert "Inconclusive: `inconclusive-warns`, `inconclusive-fails` (fails the release)." in md
    assert md.count("| **inconclusive** |") == 2
    assert render_html(report).count('<span class="badge v-inconclusive">inconclusive</span>') == 2


def test_junit_fails_only_the_inconclusive_rule_that_fails_the_release(report):
    root = ET.fromstring(render_junit(report).encode())
    cases = {c.get("name"): c for c in root.iter("testcase")}
    assert cases["inconclusive-fails"].find("failure").get("type") == "inconclusive"
    skipped = cases["inconclusive-warns"].find("skipped")
    assert cases["inconclusive-warns"].find("failure") is None
    assert skipped.get("message").startswith("inconclusive: The estimate 0.8333 is not above the fail level 0.9")
    # failures: fails, inconclusive-fails; skipped: waived, inconclusive-warns; errors: errors.
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("8", "2", "2", "1")


def test_junit_fail_on_warn_turns_an_inconclusive_warning_into_a_failure(report):
    report["provenance"]["fail_on_warn"] = True
    root = ET.fromstring(render_junit(report).encode())
    case = next(c for c in root.iter("testcase") if c.get("name") == "inconclusive-warns")
    assert case.find("failure").get("type") == "warning"


def test_sarif_kinds_and_levels_follow_what_inconclusive_does_to_the_release(report):
    found = {r["ruleId"]: (r["kind"], r["level"]) for r in build_sarif(report)["runs"][0]["results"]}
    assert found == {
        "warns": ("fail", "warning"),
        "fails": ("fail", "error"),
        "advisory-fails": ("fail", "warning"),
        "inconclusive-warns": ("open", "none"),  # SARIF: insufficient information; any kind but fail has level none
        "inconclusive-fails": ("fail", "error"),
        "waived": ("fail", "error"),
    }


def test_sarif_message_words_the_inconclusive_verdict(report):
    result = next(r for r in build_sarif(report)["runs"][0]["results"] if r["ruleId"] == "inconclusive-warns")
    assert result["message"]["text"].startswith(
        "Rule inconclusive-warns (toy_share) is inconclusive: measured 0.8333 [0.3588, 0.9958]; "
        "threshold: fail if > 0.9 (upper CI bound). The estimate 0.8333 is not above the fail level 0.9, but the upper"
    )


# --- observed rate, baseline, excess


class ExcessParams(Params):
    baseline_only: bool = Field(False, description="Report a baseline without a raw rate.")


@pytest.fixture
def excess_metric():
    def excess(ctx, params, needs):
        """An excess over chance (test metric)."""
        if params.baseline_only:
            return MetricResult(
                0.518, (0.5, 0.536), 0.95, baseline=0.5, baseline_label="the share expected without leakage"
            )
        return MetricResult(
            0.05,
            (0.01, 0.09),
            0.95,
            raw=0.25,
            baseline=0.2,
            baseline_label="chance: sum of p^2 over the secret's values",
        )

    yield from registered_toy_metric("excess", excess, ExcessParams)


@pytest.fixture
def excess_report(excess_metric, write, toy_release, tmp_path):
    text = """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: linkage, metric: excess, threshold: {fail_above: 0.1}}
  - {id: share, metric: excess, params: {baseline_only: true}, threshold: {fail_above: 0.55}}
"""
    release = load_manifest(toy_release["manifest"])
    return check_release(
        write("p.yaml", text), release, tmp_path / "out", CheckOptions(executor="serial"), formats=("json",)
    )


def test_report_json_carries_raw_baseline_and_its_label(excess_report):
    rule = excess_report["rules"][0]
    assert (rule["value"], rule["raw"], rule["baseline"]) == (0.05, 0.25, 0.2)
    assert rule["baseline_label"] == "chance: sum of p^2 over the secret's values"


def test_html_shows_observed_baseline_and_excess_side_by_side(excess_report):
    html = render_html(excess_report)
    assert (
        "Observed 0.25 − baseline 0.2 = excess 0.05; the baseline is chance: sum of p^2 over the secret&#39;s values."
        in html
    )
    assert "<td>0.25 − 0.2</td>" in html  # the summary table's observed − baseline column
    assert "Baseline 0.5; the baseline is the share expected without leakage." in html


def test_markdown_shows_observed_and_baseline_columns(excess_report):
    md = render_markdown(excess_report)
    assert "| `linkage` | excess | **pass** | 0.05 (excess) | [0.01, 0.09] at 95% | 0.25 | 0.2 | fail if > 0.1 |" in md
    assert "| `share` | excess | **pass** | 0.518 | [0.5, 0.536] at 95% | – | 0.5 | fail if > 0.55 |" in md


def test_console_summary_shows_the_excess_and_its_parts(excess_report, capsys):
    print_summary(excess_report)
    out = capsys.readouterr().out
    assert "linkage (excess): 0.05 [0.01, 0.09] excess = observed 0.25 − baseline 0.2" in out
    assert "share (excess): 0.518 [0.5, 0.536] (baseline 0.5)" in out


def test_a_report_without_baselines_reads_as_before(report):
    rule = next(r for r in report["rules"] if r["id"] == "passes")
    assert (rule["raw"], rule["baseline"], rule["baseline_label"]) == (None, None, None)
    assert json.dumps(rule).count("baseline") == 2


def test_markdown_leaves_out_the_baseline_columns_when_no_rule_has_one(report):
    md = render_markdown(report)
    assert "| rule | metric | verdict | value | interval | threshold |" in md and "| baseline |" not in md


def test_a_value_derived_as_a_ratio_is_not_worded_as_observed_minus_baseline():
    from policycheck.report.formatting import measured_text

    # reconstruction_individual_risk: (acc - acc_control) / (1 - acc_control), not acc - acc_control.
    ratio = {"value": 0.003851, "interval": None, "raw": 0.7413, "baseline": 0.7403}
    assert measured_text(ratio) == "0.003851 (observed 0.7413, baseline 0.7403)"
    excess = {"value": 0.05, "interval": None, "raw": 0.25, "baseline": 0.2}
    assert measured_text(excess) == "0.05 excess = observed 0.25 − baseline 0.2"
