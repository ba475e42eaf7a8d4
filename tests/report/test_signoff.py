"""Sign-off records (``policycheck sign``): bound to the report's bytes, checked by ``verify``, listed by ``index``."""

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from policycheck.interfaces.cli import cli
from policycheck.report.signoff import canonical

SAMPLE = Path(__file__).resolve().parents[2] / "reports" / "demo" / "indhist_dp"


def copied_sample() -> Path:
    """The demo's indhist_dp report set, copied into ./run as the check wrote it."""
    folder = Path("run")
    folder.mkdir()
    for name in ("report.json", "report.html", "report.md"):
        shutil.copy(SAMPLE / name, folder / name)
    return folder


@pytest.fixture
def signed():
    folder = copied_sample()
    result = invoke(
        "sign",
        "run/report.json",
        "--name",
        "Ada Lovelace",
        "--role",
        "privacy reviewer",
        "--decision",
        "approve",
        "--comment",
        "release to the teaching portal only",
        "--review-by",
        "2099-05-01",
    )
    assert result.exit_code == 0, result.output
    return folder


def invoke(*args):
    return CliRunner().invoke(cli, [str(a) for a in args])


def test_sign_writes_a_record_bound_to_the_reports_sha256(signed):
    records = json.loads((signed / "report.signoff.json").read_text())["records"]
    (record,) = records
    assert record["files"]["report.json"] == hashlib.sha256((SAMPLE / "report.json").read_bytes()).hexdigest()
    assert (record["signer"], record["decision"], record["review_by"]) == (
        {"name": "Ada Lovelace", "role": "privacy reviewer"},
        "approve",
        "2099-05-01",
    )
    assert record["release"] == "adult-demo-indhist-dp" and record["verdict"] == "warn"


def test_verify_passes_a_signed_report_as_it_was_signed(signed):
    result = invoke("verify", "run/report.json", "--signoff-only")
    assert result.exit_code == 0 and "approve by Ada Lovelace (privacy reviewer)" in result.output


def test_a_record_without_an_ssh_signature_is_not_called_signed(signed):
    result = invoke("verify", "run/report.json", "--signoff-only")
    (line,) = [x for x in result.output.splitlines() if "sign-off:" in x]
    assert line.startswith("ok       sign-off: approve by Ada Lovelace (privacy reviewer) on ")
    assert line.endswith(": matches the report; not SSH-signed")


@pytest.mark.parametrize("edited", ["report.json", "report.html", "report.signoff.json"])
def test_verify_fails_when_the_report_or_the_record_is_edited(signed, edited):
    path = signed / edited
    # the report's verdict turned into a pass (still a valid report), a page touched, the signer renamed
    text = path.read_text().replace('"verdict": "warn"', '"verdict": "pass"', 1).replace("Ada Lovelace", "Eve")
    path.write_text(text if text != path.read_text() else text + " ")
    result = invoke("verify", "run/report.json", "--signoff-only")
    assert result.exit_code == 1 and "DIFFERS" in result.output


def test_index_shows_the_decision_the_signer_and_whether_the_record_matches(signed):
    result = invoke("index", ".")
    assert result.exit_code == 0
    page = Path("index.html").read_text()
    assert "approve by Ada Lovelace (privacy reviewer)" in page and "verified: matches the report" in page
    (signed / "report.md").write_text("edited")
    invoke("index", ".", "-o", "again.html")
    assert "FAILS: a record does not match the report" in Path("again.html").read_text()
    invoke("index", ".", "-o", "fails.html", "--verdict", "fail")
    assert "0 reports, newest first (verdict fail)" in Path("fails.html").read_text()


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_an_ssh_signed_record_verifies_and_fails_once_edited(signed):
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", "key", "-C", "bob"], check=True)
    result = invoke(
        "sign", "run/report.json", "--by", "Bob", "--role", "data owner", "--decision", "reject", "--ssh-key", "key"
    )
    assert result.exit_code == 0 and "SSH-signed" in result.output
    assert "SSH signature good" in invoke("verify", "run/report.json", "--signoff-only").output
    path = signed / "report.signoff.json"
    data = json.loads(path.read_text())
    data["records"][1]["decision"] = "approve"
    # a forger can recompute the record's digest, not the signer's signature
    data["records"][1]["record_sha256"] = hashlib.sha256(canonical(data["records"][1])).hexdigest()
    path.write_text(json.dumps(data))
    result = invoke("verify", "run/report.json", "--signoff-only")
    assert result.exit_code == 1 and "its SSH signature does not match the record" in result.output


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
def test_a_valid_signature_by_a_key_not_allowed_for_the_name_is_told_so(signed):
    for name in ("bob", "eve"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", name, "-C", name], check=True)
    Path("allowed_signers").write_text(f"Bob {Path('bob.pub').read_text()}")
    # Eve signs as Bob with her own key: the signature is sound, the key is not Bob's.
    as_bob = ("--by", "Bob", "--role", "data owner", "--decision", "approve")
    assert invoke("sign", "run/report.json", *as_bob, "--ssh-key", "eve").exit_code == 0
    result = invoke("verify", "run/report.json", "--signoff-only", "--allowed-signers", "allowed_signers")
    assert result.exit_code == 1
    assert (
        "approve by Bob (data owner)" in result.output
        and "its SSH signature is valid, but its key is not an allowed signer for 'Bob' in allowed_signers"
        in result.output
    )


@pytest.mark.parametrize("edited", ["report.json", "report.md"])
def test_sign_refuses_a_report_edited_after_its_check(edited):
    folder = copied_sample()
    path = folder / edited
    path.write_text(path.read_text().replace('"verdict": "warn"', '"verdict": "pass"', 1).replace("WARN", "PASS"))
    result = invoke("sign", path.with_name("report.json"), "--name", "A", "--role", "B", "--decision", "approve")
    assert result.exit_code == 2, result.output
    (line,) = result.output.strip().splitlines()
    assert "report.json: not as its check wrote it: " in line and "Sign a report as its check wrote it" in line
    assert not (folder / "report.signoff.json").exists()


def test_verify_signoff_only_names_a_report_edited_after_its_seal(signed):
    # Edited after signing: the record no longer matches, and the seal says the report changed as well.
    path = signed / "report.json"
    path.write_text(path.read_text().replace('"verdict": "warn"', '"verdict": "pass"', 1))
    result = invoke("verify", "run/report.json", "--signoff-only")
    assert result.exit_code == 1
    assert "DIFFERS  field provenance.integrity.report_sha256: does not match its digest" in result.output


def test_index_marks_a_report_edited_after_its_check(signed):
    path = signed / "report.json"
    path.write_text(path.read_text().replace('"verdict": "warn"', '"verdict": "pass"', 1))
    assert invoke("index", ".").exit_code == 0
    assert "report.json edited after the run: not the check's verdict" in Path("index.html").read_text()


def test_sign_refuses_a_review_date_that_has_passed():
    folder = copied_sample()
    result = invoke(
        "sign", "run/report.json", "--name", "A", "--role", "B", "--decision", "approve", "--review-by", "2000-01-01"
    )
    assert result.exit_code == 2 and "--review-by: 2000-01-01 has passed" in result.output
    assert not (folder / "report.signoff.json").exists()


def test_sign_refuses_a_file_that_is_not_a_report():
    Path("x.json").write_text("{}")
    result = invoke("sign", "x.json", "--name", "A", "--role", "B", "--decision", "approve")
    assert result.exit_code == 2 and "not a policycheck report" in result.output
    assert not Path("report.signoff.json").exists()


def test_diff_warns_when_the_reports_are_of_different_releases():
    result = invoke("diff", SAMPLE.parent / "nonprivate" / "report.json", SAMPLE / "report.json")
    assert "warning: the reports are of different releases ('adult-demo-nonprivate' and 'adult-demo-indhist-dp')" in (
        result.output
    )
