"""Reading across runs: ``diff --format html`` (rules whose verdict or value moved, with both values) and
``index`` (every report under a folder with its verdict and date)."""

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

from policycheck.interfaces.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture
def two_runs(toy_metric, write, toy_release):
    """The toy release (Male share 5/6: warn), then one synthetic Female made Male (6/6: fail)."""
    policy = write("p.yaml", TOY_POLICY)
    assert (
        invoke(
            "check",
            policy,
            "-r",
            toy_release["manifest"],
            "-o",
            "runs/q1",
            "-q",
            "--executor",
            "serial",
            "--format",
            "json,html",
        ).exit_code
        == 0
    )
    syn = toy_release["synthetic"]
    syn.write_text(syn.read_text().replace("41,Female", "41,Male"))
    assert (
        invoke(
            "check",
            policy,
            "-r",
            toy_release["manifest"],
            "-o",
            "runs/q2",
            "-q",
            "--executor",
            "serial",
            "--format",
            "json",
        ).exit_code
        == 1
    )
    return Path("runs/q1/report.json"), Path("runs/q2/report.json")


def cells(html: str) -> list[list[str]]:
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", html, re.S)
    return [[re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)] for row in rows]


def test_diff_html_lists_the_rule_that_moved_with_both_verdicts_and_values(two_runs):
    result = invoke("diff", *two_runs, "--format", "html", "-o", "diff.html")
    assert result.exit_code == 0
    html = Path("diff.html").read_text(encoding="utf-8")
    assert "<h2>Rules whose verdict or value moved (1)</h2>" in html
    # 5/6 = 0.8333 warns; 6/6 = 1 fails (Clopper-Pearson 95% intervals [0.3588, 0.9958] and [0.5407, 1])
    moved = next(row for row in cells(html) if row[:2] == ["male-share", "toy_share"])
    assert moved[2:6] == ["warn", "0.8333 [0.3588, 0.9958]", "fail", "1 [0.5407, 1]"]
    assert moved[6].startswith("fail if &gt; 0.9")  # the threshold it was judged against (escaped in the page)
    assert "synthetic set 1 sha256" in html  # the input that changed


def test_diff_html_goes_to_stdout_and_keeps_fail_on_worse(two_runs):
    result = invoke("diff", *two_runs, "--format", "html", "--fail-on-worse")
    assert result.exit_code == 1 and result.output.startswith("<!DOCTYPE html>")


def test_diff_html_escapes_values_from_the_reports(two_runs):
    old, new = two_runs
    report = json.loads(new.read_text())
    report["rules"][0]["metric"] = "<script>alert(1)</script>"
    hostile = Path("hostile.json")
    hostile.write_text(json.dumps(report))
    html = invoke("diff", old, hostile, "--format", "html").output
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_index_lists_every_report_under_a_folder_newest_first(two_runs):
    Path("runs/broken").mkdir()
    Path("runs/broken/report.json").write_text("{}")
    result = invoke("index", "runs")
    assert result.exit_code == 0 and "2 reports listed in runs/index.html; 1 not read" in result.output
    html = Path("runs/index.html").read_text(encoding="utf-8")
    q1, q2 = (json.loads(p.read_text()) for p in two_runs)
    rows = [r for r in cells(html) if r]
    assert [r[0] for r in rows[:2]] == sorted([q1["generated_at"], q2["generated_at"]], reverse=True)
    assert {(r[1], r[3], r[5]) for r in rows[:2]} == {
        ("toy-release", "WARN", "q1"),
        ("toy-release", "FAIL", "q2"),
    }
    assert 'href="q1/report.html"' in html and 'href="q2/report.json"' in html  # q2 wrote no HTML
    assert "<code>broken/report.json</code>: not a policycheck report" in html
