"""A rule whose interval is not of its value says what it is of, wherever the interval is shown.

QA audit: a DP claim excess printed "[0, 0] at 95%" read as "the excess over the claimed epsilon is certainly
zero", yet that interval bounds what one attack can show, never the mechanism's epsilon. report.json's
``interval_of`` says so, and every render prints it beside the interval; a rule without it renders as before.
"""

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import registered_toy_metric

from policycheck.metrics.dp.claims import INTERVAL_OF
from policycheck.report import decision
from policycheck.report.across import rule_rows
from policycheck.report.charts.gauge import render_gauge
from policycheck.report.formatting import measured_text, settle_text
from policycheck.report.model import Report, first_key_out_of_order
from policycheck.report.render import render_explain, render_html, render_markdown
from policycheck.report.sarif import build_sarif

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "demo" / "indhist_dp" / "report.json"
#: The demo's first DP claim rule, as its report.md row read before the audit.
CLAIM_ROW_BEFORE = (
    "| `dp-claim` | dp_epsilon_excess_membership | **pass** | 0 | [0, 0] at 95% | – | – "
    "| fail if > 0 (on the estimate) |"
)


def with_interval_of(rule: dict[str, Any], phrase: str | None) -> dict[str, Any]:
    """The rule record with ``interval_of`` where report.json writes it (after ``interval``), or without it."""
    out = {}
    for key, value in rule.items():
        if key != "interval_of":
            out[key] = value
        if key == "interval" and phrase is not None:
            out["interval_of"] = phrase
    return out


def sample(of_claims: bool = True, **others: str) -> dict[str, Any]:
    """The demo's indhist_dp report.json, its DP claim rules' intervals saying what they are of (as the claim
    excess metrics give it) or not (``of_claims=False``: as reports written before it read), and the rules
    named in ``others`` given that phrase."""
    report = json.loads(SAMPLE.read_text())
    report["rules"] = [
        with_interval_of(
            rule,
            others.get(rule["id"])
            or (INTERVAL_OF if of_claims and rule["metric"].startswith("dp_epsilon_excess_") else None),
        )
        for rule in report["rules"]
    ]
    return report


def rule_of(report: dict[str, Any], rule_id: str) -> dict[str, Any]:
    return next(r for r in report["rules"] if r["id"] == rule_id)


def test_the_markdown_row_of_a_dp_claim_says_its_interval_is_of_this_attack():
    rows = [line for line in render_markdown(sample()).splitlines() if line.startswith("| `dp-claim` |")]
    assert rows == [
        "| `dp-claim` | dp_epsilon_excess_membership | **pass** | 0 | [0, 0] at 95%, of this attack's excess over "
        "the claim | – | – | fail if > 0 (on the estimate) |"
    ]


def test_the_markdown_says_in_full_what_a_dp_claim_interval_is_of_below_the_table():
    lines = [line for line in render_markdown(sample()).splitlines() if line.startswith("- `dp-claim` (pass)")]
    assert lines == [
        "- `dp-claim` (pass): Decided on the estimate (compare: estimate): 0 is within the fail level 0. Not refuted "
        "by this test (a test cannot verify a DP claim). The interval is of this attack's excess over the claim; the "
        "mechanism's own excess may be larger: no test bounds its epsilon from above."
    ]


def test_a_rule_without_interval_of_renders_as_before():
    before, after = render_markdown(sample(of_claims=False)), render_markdown(sample())
    assert CLAIM_ROW_BEFORE in before.splitlines()
    changed = [(a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    # the two DP claim rules' rows and decision lines, nothing else
    assert [a.split(" |")[0].split(" (")[0] for a, _ in changed] == [
        "| `dp-claim`",
        "| `dp-claim-game`",
        "- `dp-claim`",
        "- `dp-claim-game`",
    ]


def test_the_html_table_cell_of_a_dp_claim_says_its_interval_is_of_this_attack():
    html = render_html(sample())
    cell = '<td>0 <span class="muted small">[0, 0, 95%] of this attack&#39;s excess over the claim</span></td>'
    assert html.count(cell) == 2  # dp-claim and dp-claim-game


def test_the_html_rule_section_of_a_dp_claim_says_in_full_what_its_interval_is_of():
    html = render_html(sample())
    assert (
        '<p class="measure">Measured <strong>0</strong> (95% interval 0 – 0, of this attack&#39;s excess over the '
        "claim; the mechanism&#39;s own excess may be larger: no test bounds its epsilon from above); threshold: "
        "fail if &gt; 0 (on the estimate)." in html
    )


def test_html_without_interval_of_is_unchanged_outside_the_dp_claim_rules():
    before, after = render_html(sample(of_claims=False)), render_html(sample())
    changed = [b for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b]
    assert changed and all("this attack&#39;s excess over the claim" in line for line in changed)


def test_explain_prints_the_whole_phrase_with_the_interval_level():
    lines = [line.strip() for line in render_explain(sample()).splitlines()]
    assert (
        "measured 0 [0, 0] (95% interval of this attack's excess over the claim; the mechanism's own excess may be "
        "larger: no test bounds its epsilon from above); threshold: fail if > 0 (on the estimate)" in lines
    )


def test_the_measured_text_of_one_line_outputs_names_what_the_interval_is_of():
    # the console summary, JUnit and SARIF messages and the HTML's attention list print measured_text
    assert measured_text(rule_of(sample(), "dp-claim")) == "0 [0, 0] of this attack's excess over the claim"
    assert measured_text(rule_of(sample(of_claims=False), "dp-claim")) == "0 [0, 0]"


def test_junit_carries_the_whole_phrase_as_a_property_of_the_rule():
    from policycheck.report.junit import render_junit

    root = ET.fromstring(render_junit(sample()))
    case = next(c for c in root.iter("testcase") if c.get("name") == "dp-claim")
    properties = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert properties["interval_of"] == INTERVAL_OF
    other = next(c for c in root.iter("testcase") if c.get("name") == "exact-copies")
    assert "interval_of" not in {p.get("name") for p in other.iter("property")}


def test_sarif_carries_interval_of_only_for_a_rule_that_has_one():
    # a DP claim that passes is no SARIF result; the renderer knows no metric, so any rule's phrase shows
    phrase = "the worst set's share; the others' are in the details"
    results = build_sarif(sample(**{"exact-copies": phrase}))["runs"][0]["results"]
    properties = {r["ruleId"]: r["properties"] for r in results}
    assert properties["exact-copies"]["intervalOf"] == phrase
    assert "intervalOf" not in properties["membership-game"]


def test_the_decision_page_sentence_says_what_the_interval_is_of():
    sentence = decision.plain_sentence(rule_of(sample(), "dp-claim"), 0.95, several_sets=False)
    assert sentence.endswith(
        ": measured 0 (95% interval 0 to 0, of this attack's excess over the claim); within its levels."
    )


def test_what_settles_an_unsettled_rule_names_what_its_interval_is_of():
    rule = rule_of(sample(**{"exact-copies": "the copies' excess; more"}), "exact-copies")
    assert settle_text(rule).startswith(
        "the interval [-0.00146, 0.00146] of the copies' excess contains the warn level 0.001;"
    )


def test_the_gauges_words_say_what_the_interval_is_of():
    svg = render_gauge(rule_of(sample(), "dp-claim"))
    assert "<title>measured 0, interval 0 to 0, of this attack&#39;s excess over the claim; fail above 0</title>" in svg


def test_a_report_written_before_interval_of_has_not_moved_in_a_comparison():
    rows = {r["id"]: r for r in rule_rows(sample(of_claims=False), sample())}
    assert not rows["dp-claim"]["moved"]
    assert rows["dp-claim"]["new_value"] == "0 [0, 0] of this attack's excess over the claim"


def test_to_frame_has_what_each_interval_is_of():
    from policycheck.interfaces.api.report import Report as ApiReport

    frame = ApiReport(sample()).to_frame().set_index("id")
    assert frame.loc["dp-claim", "interval_of"] == INTERVAL_OF
    # Missing, as pandas spells it: None in an object column (pandas 2), NaN in a str one (pandas 3).
    assert pd.isna(frame.loc["exact-copies", "interval_of"])


@pytest.mark.parametrize("of_claims", [True, False])
def test_report_json_with_or_without_interval_of_keeps_the_published_schema_and_its_key_order(of_claims):
    report = sample(of_claims)
    Report.model_validate(report)
    assert first_key_out_of_order(report) is None


@pytest.fixture
def claim_like_metric():
    """``claim_like``: a value of 0 whose interval is of something else, as the DP claim excess rules give it."""
    from policycheck.metrics.base import MetricResult

    def claim_like(ctx, params, needs):
        """A value whose interval is of something else (test metric)."""
        return MetricResult(0.0, (0.0, 2.8), 0.95, interval_of=INTERVAL_OF)

    yield from registered_toy_metric("claim_like", claim_like)


def test_report_json_carries_interval_of_where_the_metric_gives_it_and_nowhere_else(
    claim_like_metric, toy_metric, write, toy_release, tmp_path
):
    from policycheck.interfaces.check import CheckOptions, check_release
    from policycheck.release.load import load_manifest

    policy = write(
        "p.yaml",
        """\
metadata: {id: toy, title: Toy policy, version: "1", owner: tests}
attacker: {model: no-box}
rules:
  - {id: claim, metric: claim_like, threshold: {fail_above: 0, compare: estimate}}
  - {id: share, metric: toy_share, params: {column: sex, value: Male}, threshold: {fail_above: 0.9, compare: estimate}}
""",
    )
    release = load_manifest(toy_release["manifest"])
    report = check_release(policy, release, tmp_path / "out", CheckOptions(executor="serial"), formats=("json",))
    claim, share = report["rules"]
    assert claim["interval_of"] == INTERVAL_OF and "interval_of" not in share
    assert first_key_out_of_order(report) is None
