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


def sha256_of(name):
    return hashlib.sha256(Path("out", name).read_bytes()).hexdigest()


def test_report_json_lists_each_report_file_written_with_it_by_the_sha256_of_its_bytes(toy):
    report = check("json", "html", "md", "junit", "sarif")
    names = ["report.html", "report.md", "report.junit.xml", "report.sarif"]
    assert report["provenance"]["integrity"]["report_files"] == [{"name": n, "sha256": sha256_of(n)} for n in names]


def test_report_json_records_the_sha256_of_the_pdf_written_with_it(toy):
    needs_chromium()
    report = check("json", "html", "pdf")
    assert report["provenance"]["integrity"]["report_files"] == [
        {"name": "report.html", "sha256": sha256_of("report.html")},
        {"name": "report.pdf", "sha256": sha256_of("report.pdf")},
    ]


def test_the_list_of_report_files_leaves_the_report_digest_and_the_renders_as_they_were(toy):
    report = check("json", "html", "md")
    integrity = report["provenance"]["integrity"]
    unlisted = {**report, "provenance": {**report["provenance"], "integrity": {**integrity}}}
    del unlisted["provenance"]["integrity"]["report_files"]
    assert integrity["report_sha256"] == digest(without_integrity(report))
    for fmt in ("html", "md", "junit", "sarif"):
        assert render_format(fmt, report) == render_format(fmt, unlisted), fmt
