"""``policycheck verify`` as a user sees it: the lines it prints, its exit code, never a traceback."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TOY_POLICY, toy_check_args

import policycheck.interfaces.verify as verify_module
from policycheck.interfaces.cli import cli


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


def run_without_file_permission_override(*args):
    """The CLI in a subprocess that file permissions bind, root included (its DAC override dropped)."""
    cmd = [sys.executable, "-c", "from policycheck.interfaces.cli import main; main()", *map(str, args)]
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("running as root without setpriv: file permissions cannot bind")
        cmd = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--", *cmd]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def made(toy_metric, write, toy_release):
    """A report set (json, html, md, junit, sarif) in out/, made with the toy release's manifest."""
    policy = write("p.yaml", TOY_POLICY)
    result = invoke(
        *toy_check_args(policy, toy_release["manifest"], "--seed", "4", "--format", "json,html,md,junit,sarif")
    )
    assert result.exit_code == 0, result.output
    return Path("out/report.json")


@pytest.mark.parametrize("extra", [[], ["--signoff-only"]], ids=["verify", "signoff-only"])
def test_an_unreadable_report_folder_is_one_line_naming_it_and_exit_2(made, extra):
    made.parent.chmod(0)
    try:
        code, out, err = run_without_file_permission_override("verify", made, "--root", ".", "-q", *extra)
    finally:
        made.parent.chmod(0o755)
    assert (code, out, err) == (2, "", "error: out/report.json: cannot read report file: Permission denied\n")


def test_an_unreadable_signoff_file_is_one_line_naming_it_and_exit_2(made):
    assert invoke("sign", made, "--name", "Jane Roe", "--role", "DPO", "--decision", "approve").exit_code == 0
    records = made.with_name("report.signoff.json")
    records.chmod(0)
    code, out, err = run_without_file_permission_override("verify", made, "--signoff-only")
    assert (code, out, err) == (2, "", "error: out/report.signoff.json: cannot read sign-off file: Permission denied\n")


def test_a_signed_report_file_that_cannot_be_read_fails_its_signoff_naming_it(made):
    assert invoke("sign", made, "--name", "Jane Roe", "--role", "DPO", "--decision", "approve").exit_code == 0
    made.with_name("report.md").chmod(0)
    code, out, err = run_without_file_permission_override("verify", made, "--signoff-only")
    assert (code, err) == (1, "")
    assert out.splitlines()[-1].startswith("DIFFERS  sign-off: approve by Jane Roe (DPO) on ")
    assert out.splitlines()[-1].endswith(": report.md cannot be read (Permission denied)")


def test_signoff_only_without_a_signoff_record_exits_1_saying_there_is_none_to_verify(made):
    result = invoke("verify", made, "--signoff-only")
    assert (result.exit_code, result.output) == (
        1,
        "NOT verified: there is no sign-off record beside the report to verify "
        "(policycheck sign writes them to report.signoff.json)\n",
    )


def rerun_differing_in(count, report_path):
    """verify_report as if the recorded seed had been edited: the seal names it, and ``count`` re-run fields differ."""
    from policycheck.interfaces.verify import Difference, Verification

    report = json.loads(Path(report_path).read_text())
    differences = [Difference("sealed", "provenance.seed")] + [
        Difference("field", f"rules[0].details.cells[{i}]", old=i, new=i + 1) for i in range(count)
    ]
    return lambda *args, **kwargs: Verification(report, differences=differences)


def test_verify_lists_what_was_edited_and_20_rerun_differences_then_counts_the_rest(made, monkeypatch):
    monkeypatch.setattr(verify_module, "verify_report", rerun_differing_in(25, made))
    result = invoke("verify", made, "--root", ".", "-q")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "DIFFERS  field provenance.seed: does not match its digest in provenance.integrity (edited after the run)",
        *(f"DIFFERS  field rules[0].details.cells[{i}]: report says {i}, re-run gives {i + 1}" for i in range(20)),
        "         and 5 more differences from the re-run (--all-differences lists every one)",
        "NOT verified: 26 differences",
    ]


def test_verify_all_differences_lists_every_rerun_difference(made, monkeypatch):
    monkeypatch.setattr(verify_module, "verify_report", rerun_differing_in(25, made))
    result = invoke("verify", made, "--root", ".", "-q", "--all-differences")
    assert result.exit_code == 1
    assert len(result.output.splitlines()) == 27
    assert result.output.splitlines()[-2:] == [
        "DIFFERS  field rules[0].details.cells[24]: report says 24, re-run gives 25",
        "NOT verified: 26 differences",
    ]


def verified(report_path):
    """``verify`` of the report, in this process: its exit code and the lines other than each file's ``ok``."""
    result = invoke("verify", report_path, "--root", ".", "--executor", "serial", "-q")
    return result.exit_code, [line for line in result.output.splitlines() if not line.startswith("ok ")]


def test_a_report_json_resorted_is_named_and_the_renders_beside_it_checked_by_their_digests(made):
    report = json.loads(made.read_text())
    made.write_text(json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    made.with_name("report.md").write_text("# Approved\n")
    md = next(f for f in report["provenance"]["integrity"]["report_files"] if f["name"] == "report.md")
    assert verified(made) == (
        1,
        [
            "DIFFERS  file out/report.json: its keys are not in the order policycheck writes them (at the top "
            "level, 'methods' comes before 'policy'), so it was re-serialised after the run: its values "
            "still match their digests",
            f"DIFFERS  file out/report.md: sha256 {md['sha256']} -> {sha256_of('out/report.md')}",
            "NOT verified: 2 differences",
        ],
    )


def without_render_digests(report_path):
    """The report as written before report.json recorded its renders' digests (the PDF's alone)."""
    from policycheck.report.integrity import REPORT_FILES, digest

    report = json.loads(report_path.read_text())
    integrity = report["provenance"]["integrity"]
    integrity["report_files"] = [
        f if f["name"] == "report.pdf" else {"name": f["name"]} for f in integrity["report_files"]
    ]
    integrity["fields"][REPORT_FILES] = digest(integrity["report_files"])
    report_path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


def rendering_otherwise(monkeypatch, formats):
    """This process as a build of policycheck whose templates render ``formats`` otherwise."""
    from policycheck.report import render

    rendered = render.render_format
    monkeypatch.setattr(
        render, "render_format", lambda fmt, report: rendered(fmt, report) + ("changed\n" if fmt in formats else "")
    )


def test_a_report_json_resorted_without_render_digests_leaves_its_renders_uncompared(made):
    without_render_digests(made)
    report = json.loads(made.read_text())
    made.write_text(json.dumps(report, indent=2, ensure_ascii=False, sort_keys=True) + "\n")
    assert verified(made) == (
        1,
        [
            "DIFFERS  file out/report.json: its keys are not in the order policycheck writes them (at the top "
            "level, 'methods' comes before 'policy'), so it was re-serialised after the run: its values "
            "still match their digests, but the report files beside it render from that order and are not "
            "compared",
            "NOT verified: 1 difference",
        ],
    )


def test_renders_of_a_report_made_by_other_policycheck_code_verify_by_their_recorded_digests(made, monkeypatch):
    """Months later, another build renders report.json otherwise: the files written with it still verify."""
    rendering_otherwise(monkeypatch, ("html", "md", "junit", "sarif"))
    assert verified(made) == (
        0,
        ["verified: 5 files unchanged; 1 rule re-run with seed 4: identical verdicts and numbers"],
    )


def test_a_render_without_a_recorded_digest_that_this_code_renders_otherwise_is_named(made, monkeypatch):
    without_render_digests(made)
    rendering_otherwise(monkeypatch, ("md",))
    assert verified(made) == (
        1,
        [
            "DIFFERS  file out/report.md: differs from what report.json renders to with this policycheck: edited, "
            "from another run, or rendered by other policycheck code (the report records no digest of the file "
            "to tell which)",
            "NOT verified: 1 difference",
        ],
    )


def test_a_report_json_reindented_still_verifies(made):
    report = json.loads(made.read_text())
    made.write_text(json.dumps(report, indent=4, ensure_ascii=False) + "\n")
    result = invoke("verify", made, "--root", ".", "--executor", "serial", "-q")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "verified: 5 files unchanged; 1 rule re-run with seed 4: identical verdicts and numbers",
    )


def needs_chromium():
    from policycheck.report import pdf

    if pdf.find_chromium() is None:
        if os.environ.get("CI"):
            pytest.fail("chromium missing: CI must install Debian's chromium (see .ci/run)")
        pytest.skip("chromium not installed")


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_verify_names_a_report_pdf_of_another_run_by_its_sha256(toy_metric, write, toy_release):
    needs_chromium()
    write("p.yaml", TOY_POLICY)
    for out in ("out", "other"):
        args = ("check", "p.yaml", "-r", toy_release["manifest"], "-o", out, "-q", "--executor", "serial")
        assert invoke(*args, "--format", "json,html,pdf").exit_code == 0
    printed = sha256_of("out/report.pdf")
    shutil.copyfile("other/report.pdf", "out/report.pdf")
    result = invoke("verify", "out/report.json", "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if not line.startswith("ok ")] == [
        f"DIFFERS  file out/report.pdf: sha256 {printed} -> {sha256_of('other/report.pdf')}",
        "NOT verified: 1 difference",
    ]


def test_verify_names_each_report_file_written_with_the_report_that_is_missing(made):
    made.with_name("report.html").unlink()
    made.with_name("report.md").rename(made.with_name("report-approved.md"))
    made.with_name("NOTES.txt").write_text("stray\n")
    result = invoke("verify", made, "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if not line.startswith("ok ")] == [
        "DIFFERS  file out/report.html: missing: written with this report",
        "DIFFERS  file out/report.md: missing: written with this report",
        "NOT verified: 2 differences",
    ]


def test_verify_fails_a_report_pdf_not_written_with_the_report(made):
    made.with_name("report.pdf").write_bytes(b"%PDF-1.4 printed elsewhere\n")
    result = invoke("verify", made, "--root", ".", "--executor", "serial", "-q")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if not line.startswith("ok ")] == [
        "DIFFERS  file out/report.pdf: not written with this report, which records no digest to check it by "
        "(printed from another run, or since)",
        "NOT verified: 1 difference",
    ]


def test_verify_of_a_report_that_lists_no_report_files_checks_the_renders_present(made):
    """A report written before report.json listed its set: the renders beside it are checked, none is missing."""
    report = json.loads(made.read_text())
    integrity = report["provenance"]["integrity"]
    integrity.pop("report_files", None)
    integrity["fields"].pop("provenance.integrity.report_files", None)
    made.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    made.with_name("report.html").unlink()
    result = invoke("verify", made, "--root", ".", "--executor", "serial", "-q")
    assert (result.exit_code, result.output.splitlines()[-1]) == (
        0,
        "verified: 5 files unchanged; 1 rule re-run with seed 4: identical verdicts and numbers",
    )


def test_a_report_of_a_policy_with_starter_levels_verifies(toy_metric, write, toy_release):
    # The check says which levels nobody chose; the re-run must say the same, or no such report verifies.
    starter = TOY_POLICY.replace("compare: estimate}", "compare: estimate}\n    rationale: (starter level) x")
    policy = write("p.yaml", starter)
    assert invoke(*toy_check_args(policy, toy_release["manifest"])).exit_code == 0
    findings = json.loads(Path("out/report.json").read_text())["release"]["findings"]
    assert [f for f in findings if f.startswith("policy: rule 'male-share' keeps the placeholder level")]
    result = invoke("verify", "out/report.json", "--root", ".", "-q", "--executor", "serial")
    assert result.exit_code == 0, result.output
