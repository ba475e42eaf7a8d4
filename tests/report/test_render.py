"""Writing a report set (policycheck/report/render.py): report.json lists the report files written with it."""

import hashlib
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY, toy_check_args

from policycheck.interfaces.cli import cli
from policycheck.report import pdf
from policycheck.report.integrity import digest, without_integrity
from policycheck.report.render import render_format


def check(*formats):
    args = toy_check_args("p.yaml", "release.yaml", "--format", ",".join(formats))
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(Path("out/report.json").read_text())


def needs_chromium():
    if pdf.find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium missing: CI must install Debian's chromium (see .ci/run)")
        pytest.skip("chromium not installed")


@pytest.fixture
def toy(toy_metric, write, toy_release):
    write("p.yaml", TOY_POLICY)


def test_report_json_lists_the_report_files_written_with_it(toy):
    report = check("json", "html", "md", "junit", "sarif")
    assert report["provenance"]["integrity"]["report_files"] == [
        {"name": "report.html"},
        {"name": "report.md"},
        {"name": "report.junit.xml"},
        {"name": "report.sarif"},
    ]


def test_report_json_records_the_sha256_of_the_pdf_written_with_it(toy):
    needs_chromium()
    report = check("json", "html", "pdf")
    printed = hashlib.sha256(Path("out/report.pdf").read_bytes()).hexdigest()
    assert report["provenance"]["integrity"]["report_files"] == [
        {"name": "report.html"},
        {"name": "report.pdf", "sha256": printed},
    ]


def test_the_list_of_report_files_leaves_the_report_digest_and_the_renders_as_they_were(toy):
    report = check("json", "html", "md")
    integrity = report["provenance"]["integrity"]
    unlisted = {**report, "provenance": {**report["provenance"], "integrity": {**integrity}}}
    del unlisted["provenance"]["integrity"]["report_files"]
    assert integrity["report_sha256"] == digest(without_integrity(report))
    for fmt in ("html", "md", "junit", "sarif"):
        assert render_format(fmt, report) == render_format(fmt, unlisted), fmt
