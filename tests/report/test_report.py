import json
import re

import pytest
from conftest import TOY_POLICY
from jsonschema import Draft7Validator

from policycheck.interfaces.check import CheckOptions, check_release
from policycheck.release.load import load_manifest
from policycheck.report.render import render_html, render_markdown
from policycheck.report.schema import report_schema


@pytest.fixture
def report(toy_metric, write, toy_release, tmp_path):
    release = load_manifest(toy_release["manifest"])
    return check_release(
        write("p.yaml", TOY_POLICY), release, tmp_path / "out", CheckOptions(executor="serial", seed=3)
    )


def test_report_json_validates_against_the_published_schema(report, tmp_path):
    data = json.loads((tmp_path / "out" / "report.json").read_text())
    assert list(Draft7Validator(report_schema()).iter_errors(data)) == []
    assert data["schema_version"] == "1.8" and data["verdict"] == "warn"


def test_report_records_provenance(report):
    prov = report["provenance"]
    assert prov["seed"] == 3
    assert [f["path"].rsplit("/", 1)[-1] for f in prov["data_files"]] == [
        "original.csv",
        "synthetic.csv",
        "holdout.csv",
    ]
    assert all(len(f["sha256"]) == 64 for f in prov["data_files"] + prov["policy_files"])
    assert "numpy" in prov["libraries"]


def test_rule_record_holds_value_threshold_and_interval(report):
    (rule,) = report["rules"]
    assert rule["id"] == "male-share" and rule["metric"] == "toy_share"
    assert rule["threshold"]["fail_above"] == 0.9
    assert rule["interval"][0] < rule["value"] < rule["interval"][1]
    assert rule["policy_location"]["line"] == 4


def test_values_from_the_data_are_escaped_in_html(report):
    report = json.loads(json.dumps(report))
    report["policy"]["quasi_identifiers"] = ["<script>alert(1)</script>"]
    report["rules"][0]["details"]["<img src=x onerror=alert(1)>"] = "<b>bold</b>"
    report["rules"][0]["charts"] = [
        {"kind": "bar", "title": "<script>t</script>", "series": [{"name": "<i>", "x": ["<script>"], "y": [1]}]}
    ]
    html = render_html(report)
    assert "<script>" not in html and "<img" not in html and "<b>bold" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_markdown_is_a_short_summary_with_a_rule_table(report):
    md = render_markdown(report)
    assert "| `male-share` | toy_share | **warn** |" in md
    # the assumptions and limitations are collapsed: what a merge request shows stays short
    shown = re.sub(r"<details>.*?</details>", "", md, flags=re.S)
    assert "What a PASS does not guarantee" in md or "A PASS does not guarantee" in md
    assert len([line for line in shown.splitlines() if line.strip()]) < 25


def test_markdown_neutralises_html_and_table_breaks_from_the_data(report):
    report = json.loads(json.dumps(report))
    report["rules"][0]["id"] = "<img src=x onerror=alert(1)>|x"
    md = render_markdown(report)
    assert "<img" not in md and "&lt;img" in md and "\\|x" in md


def _run_and_digest(report):
    return report["provenance"]["run_id"], report["provenance"]["integrity"]["report_sha256"]


def test_the_markdown_footer_calls_the_canonical_digest_the_report_digest_not_the_file_s_sha256(report):
    run, digest = _run_and_digest(report)
    md = render_markdown(report)
    assert (
        md.rstrip()
        .splitlines()[-1]
        .endswith(
            f" · run {run} · report digest {digest} (report.json's canonical SHA-256, not the file's; "
            "`policycheck verify` checks it)</sub>"
        )
    )
    assert "report.json sha256" not in md


def test_the_html_header_says_what_the_report_digest_is(report):
    # on screen: the printed pages carry the short label (the 15-page budget of test_pdf.py)
    run, digest = _run_and_digest(report)
    html = render_html(report)
    assert f'<meta name="policycheck-run" content="run {run} · report digest {digest}">' in html
    assert (
        f'· run {run} · report digest {digest}<span class="screen-only"> (the report digest is the SHA-256 of '
        "report.json&#39;s canonical content without its integrity block, not of the file&#39;s bytes (sha256sum "
        "gives another value); policycheck verify checks it)</span></p>"
    ) in html
    assert "report.json sha256" not in html
