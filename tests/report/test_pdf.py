"""The printed report: ``--format pdf`` through headless Chromium, the decision and sign-off on pages 1-2,
at most 15 A4 pages for the demo's nonprivate release (12 until the demo policy gained the membership game and
its epsilon audit, three pages with their ROC chart, targets table and evidence).

The page tests are marked ``browser`` (like test_browser.py): skipped without chromium and poppler-utils
(pdfinfo, pdftotext), except under CI (environment variable CI set), where they fail.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY

import policycheck.report.pdf as pdf
from policycheck.interfaces.cli import cli
from policycheck.report.render import render_html

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "demo" / "nonprivate" / "report.json"
A4_POINTS = (595, 842)


def needs_tools():
    missing = [
        t
        for t in ("chromium", "pdfinfo", "pdftotext")
        if not (shutil.which(t) or (t == "chromium" and pdf.find_chromium()))
    ]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"{missing} missing: CI must install Debian's chromium and poppler-utils (see .ci/run)")
        pytest.skip(f"{missing} not installed")


def pages(path: Path) -> tuple[int, tuple[int, int]]:
    info = subprocess.run(["pdfinfo", str(path)], capture_output=True, text=True, check=True).stdout
    size = re.search(r"Page size:\s+([\d.]+) x ([\d.]+) pts", info)
    return int(re.search(r"Pages:\s+(\d+)", info).group(1)), (round(float(size.group(1))), round(float(size.group(2))))


def page_text(path: Path, page: int) -> str:
    return subprocess.run(
        ["pdftotext", "-layout", "-f", str(page), "-l", str(page), str(path), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


@pytest.mark.browser
def test_demo_nonprivate_report_prints_in_at_most_15_a4_pages_with_the_sign_off_on_page_1_or_2(tmp_path):
    needs_tools()
    report = json.loads(SAMPLE.read_text(encoding="utf-8"))
    path = pdf.write_pdf(render_html(report), tmp_path / "report.pdf")
    count, size = pages(path)
    assert count <= 15 and size == A4_POINTS
    first = page_text(path, 1)
    assert "FAIL" in first and report["release"]["id"] in first and report["policy"]["id"] in first
    # the blocking failures in words: what the rule measures, the value, its interval and the level
    assert re.search(
        r"mi-risk: How much better than a coin flip .* measured 0\.8688 \(95% interval 0\.8622 to 0\.8745\); "
        r"even the lowest value the interval allows, 0\.8622, is above the fail level 0\.2\.",
        " ".join(first.split()),
    )
    assert "What a PASS does not guarantee" in first and "Assumptions the signer must ensure" in first
    # every page: page N of M, the run id and the report digest (printed through the DevTools protocol)
    mark = f"run {report['provenance']['run_id']}"
    digest = report["provenance"]["integrity"]["report_sha256"]
    for p in range(1, count + 1):
        text = " ".join(page_text(path, p).split())
        assert f"page {p} of {count}" in text and mark in text and digest in text, p
    sign_off = next(p for p in range(1, count + 1) if "Privacy / disclosure reviewer" in page_text(path, p))
    assert sign_off <= 2
    # raw JSON stays out of print: the effective policy's keys appear nowhere
    assert not any('"attacker":' in page_text(path, p) for p in range(1, count + 1))


@pytest.mark.browser
@pytest.mark.browser
def test_long_data_file_paths_do_not_push_the_demo_report_past_15_pages(tmp_path):
    # a check run from another folder records absolute paths; print shows them once, in the provenance section
    needs_tools()
    report = json.loads(SAMPLE.read_text(encoding="utf-8"))
    for d in report["release"]["datasets"]:
        d["path"] = "/srv/statistics-office/releases/2026/adult-public-extract/inputs/" + Path(d["path"]).name
    count, _ = pages(pdf.write_pdf(render_html(report), tmp_path / "report.pdf"))
    assert count <= 15


def test_check_format_pdf_writes_a_pdf_beside_the_html(toy_metric, write, toy_release):
    needs_tools()
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(write("p.yaml", TOY_POLICY)),
            "-r",
            str(toy_release["manifest"]),
            "-o",
            "out",
            "-q",
            "--executor",
            "serial",
            "--format",
            "html,pdf",
        ],
    )
    assert result.exit_code == 0, result.output
    assert Path("out/report.pdf").read_bytes()[:5] == b"%PDF-"
    assert sorted(p.name for p in Path("out").iterdir()) == ["report.html", "report.json", "report.pdf"]


def test_format_pdf_without_chromium_exits_2_before_any_computation(monkeypatch, toy_metric, write, toy_release):
    monkeypatch.setattr(pdf, "find_chromium", lambda: None)
    result = CliRunner().invoke(
        cli,
        [
            "check",
            str(write("p.yaml", TOY_POLICY)),
            "-r",
            str(toy_release["manifest"]),
            "-o",
            "out",
            "-q",
            "--format",
            "pdf",
        ],
    )
    assert result.exit_code == 2
    assert "--format pdf needs headless Chromium" in result.output
    assert not Path("out").exists()
