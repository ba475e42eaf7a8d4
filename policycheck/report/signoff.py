"""Sign-off records: a signer's decision on a report, bound to the report's bytes.

``policycheck sign report.json --name ... --role ... --decision approve|reject``
appends one record to ``report.signoff.json`` beside the report. Each record
holds what a sign-off block holds ("What sign-off
reports must contain" in the
project's conventions): the release, the policy and its hash, the automated
verdict, the signer's name, role, decision, comment and date, the review-by
date, and the waivers in force with their expiry; and it is bound to the
report by the SHA-256 of report.json's bytes and of every report file
beside it (HTML, Markdown, JUnit, SARIF, PDF).

Two checks keep a record honest (:func:`check_records`):

- the report: its bytes must hash as the record says, so an edited report
  (or an edited page beside it) no longer carries the signature;
- the record: ``record_sha256`` is the SHA-256 of the record's canonical
  JSON without that field, so an edited record is found. A digest anyone
  can recompute protects against mistakes, not forgery: for that the signer
  passes ``--ssh-key``, and the record carries a detached SSH signature
  (``ssh-keygen -Y sign``, namespace ``policycheck-signoff``, as git signs
  commits) over the same canonical JSON, checked with ``ssh-keygen -Y
  check-novalidate`` and, given an allowed-signers file, ``-Y verify``.

Nothing here runs anything a report or a record names; ``ssh-keygen`` is run
only when the user passes a key on the command line (or asks verify to check
a signature that is there).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policycheck.core.errors import InvalidInput, Problem, display_path

#: The file of sign-off records beside report.json.
SIGNOFF_FILE = "report.signoff.json"
#: Format of the records file (bumped on an incompatible change).
FORMAT = "policycheck-signoff/1"
#: The SSH signature namespace: a signature made for one purpose never verifies for another.
NAMESPACE = "policycheck-signoff"
#: Report files a record binds, when they are beside report.json.
BOUND_FILES = ("report.json", "report.html", "report.md", "report.junit.xml", "report.sarif", "report.pdf")
DECISIONS = ("approve", "reject")


def canonical(record: dict[str, Any]) -> bytes:
    """The bytes a record's digest and signature cover: sorted keys, no spaces, without digest and signature."""
    body = {k: v for k, v in record.items() if k not in ("record_sha256", "ssh")}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def bound_files(report_path: Path) -> dict[str, str]:
    """SHA-256 of report.json and of each report file beside it, by file name."""
    folder = report_path.parent
    out = {report_path.name: _sha256(report_path)}
    for name in BOUND_FILES[1:]:
        if (folder / name).is_file():
            out[name] = _sha256(folder / name)
    return out


def new_record(
    report_path: Path,
    report: dict[str, Any],
    *,
    name: str,
    role: str,
    decision: str,
    comment: str | None,
    review_by: str | None,
    now: dt.datetime | None = None,
) -> dict[str, Any]:
    """A sign-off record of ``report`` (read from ``report_path``), with its digest."""
    prov = report["provenance"]
    policy_files = prov.get("policy_files") or []
    record: dict[str, Any] = {
        "format": FORMAT,
        "release": report["release"]["id"],
        "policy": {
            "id": report["policy"]["id"],
            "version": report["policy"]["version"],
            "sha256": policy_files[0]["sha256"] if policy_files else None,
        },
        "verdict": report["verdict"],
        "run_id": prov.get("run_id"),
        "report_sha256": (prov.get("integrity") or {}).get("report_sha256"),
        "files": bound_files(report_path),
        "signer": {"name": name, "role": role},
        "decision": decision,
        "comment": comment,
        "signed_at": (now or dt.datetime.now(dt.UTC)).isoformat(timespec="seconds"),
        "review_by": review_by,
        "waivers": [
            {"rule": w["rule"], "approved_by": w["approved_by"], "expires": w["expires"]}
            for w in report.get("waivers", [])
        ],
    }
    record["record_sha256"] = hashlib.sha256(canonical(record)).hexdigest()
    return record


def ssh_sign(record: dict[str, Any], key: Path) -> dict[str, str]:
    """A detached SSH signature of the record's canonical bytes with ``key`` (``ssh-keygen -Y sign``)."""
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        raise OSError("ssh-keygen is not on PATH")
    with tempfile.TemporaryDirectory(prefix="policycheck-sign-") as tmp:
        data = Path(tmp) / "record.json"
        data.write_bytes(canonical(record))
        done = subprocess.run(  # noqa: S603 - ssh-keygen, a key the user named on the command line
            [keygen, "-Y", "sign", "-f", str(key), "-n", NAMESPACE, str(data)],
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        signature = data.with_name("record.json.sig")
        if done.returncode != 0 or not signature.is_file():
            raise OSError((done.stderr or "ssh-keygen -Y sign failed").strip().splitlines()[-1])
        text = signature.read_text(encoding="ascii")
    fingerprint = subprocess.run(  # noqa: S603 - ssh-keygen on the user's key
        [keygen, "-l", "-f", str(key)], capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL
    ).stdout.split()
    return {
        "namespace": NAMESPACE,
        "key_fingerprint": fingerprint[1] if len(fingerprint) > 1 else "",
        "signature": text,
    }


def read_records(path: Path) -> list[dict[str, Any]]:
    """The records of a sign-off file (an empty list when there is none)."""
    if not path.is_file():
        return []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InvalidInput(Problem(display_path(path), f"cannot read sign-off file: {exc.strerror}")) from None
    data = json.loads(text)
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("records"), list):
        raise ValueError(f"{path.name}: not a policycheck sign-off file ({FORMAT})")
    return [r for r in data["records"] if isinstance(r, dict)]


def records_text(records: list[dict[str, Any]]) -> str:
    return json.dumps({"format": FORMAT, "records": records}, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class RecordCheck:
    """One record checked against the report beside it."""

    record: dict[str, Any]
    problems: tuple[str, ...]
    signature: str  # "none", "good (key ...)", or why not

    @property
    def ok(self) -> bool:
        return not self.problems

    def line(self) -> str:
        r = self.record
        signer = r.get("signer") or {}
        head = (
            f"{r.get('decision', '?')} by {signer.get('name', '?')} ({signer.get('role', '?')}) on {r.get('signed_at')}"
        )
        if self.ok:
            signed = "not SSH-signed" if self.signature == "none" else f"SSH signature {self.signature}"
            return f"{head}: matches the report; {signed}"
        return f"{head}: " + "; ".join(self.problems)


def _check_ssh(record: dict[str, Any], allowed_signers: Path | None) -> tuple[str, str | None]:
    """(what the signature shows, a problem or None)."""
    ssh = record.get("ssh")
    if not ssh:
        return "none", None
    keygen = shutil.which("ssh-keygen")
    if keygen is None:
        return "not checked (no ssh-keygen)", None
    identity = (record.get("signer") or {}).get("name", "")
    with tempfile.TemporaryDirectory(prefix="policycheck-verify-") as tmp:
        sig = Path(tmp) / "record.sig"
        sig.write_text(str(ssh.get("signature", "")), encoding="ascii")
        valid = [keygen, "-Y", "check-novalidate", "-n", NAMESPACE, "-s", str(sig)]
        if allowed_signers is not None:
            cmd = [keygen, "-Y", "verify", "-f", str(allowed_signers), "-I", identity, "-n", NAMESPACE, "-s", str(sig)]
        else:
            cmd = valid
        done = _keygen(cmd, record)
        # Refused by the list: a signature valid in itself was made by a key the list does not give that name.
        listed = done.returncode == 0 or cmd is valid or _keygen(valid, record).returncode != 0
    if done.returncode != 0 and not listed:
        assert allowed_signers is not None  # only -Y verify consults a list
        return "bad", (
            f"its SSH signature is valid, but its key is not an allowed signer for {identity!r} "
            f"in {allowed_signers.name}"
        )
    if done.returncode != 0:
        return "bad", "its SSH signature does not match the record"
    shown = done.stdout.decode("utf-8", "replace").strip()
    fingerprint = ssh.get("key_fingerprint", "")
    if fingerprint and fingerprint not in shown:
        return "bad", f"the signature is not by the key the record names ({fingerprint})"
    how = "of an allowed signer" if allowed_signers is not None else "valid, signer not checked against a list"
    return f"good ({how}; key {fingerprint})", None


def _keygen(cmd: list[str], record: dict[str, Any]) -> subprocess.CompletedProcess[bytes]:
    """``ssh-keygen -Y ...`` over the record's canonical bytes."""
    return subprocess.run(  # noqa: S603 - ssh-keygen with fixed arguments; the record is data only
        cmd, input=canonical(record), capture_output=True, timeout=60
    )


def check_records(report_path: Path, allowed_signers: Path | None = None) -> list[RecordCheck]:
    """Each sign-off record beside ``report_path`` checked against the report files and itself."""
    records = read_records(report_path.with_name(SIGNOFF_FILE))
    out = []
    for record in records:
        problems = []
        if record.get("record_sha256") != hashlib.sha256(canonical(record)).hexdigest():
            problems.append("the record was edited after it was signed (its digest does not match)")
        for name, sha in (record.get("files") or {}).items():
            path = report_path.with_name(name) if name != "report.json" else report_path
            if not path.is_file():
                problems.append(f"{name} is missing")
                continue
            try:
                now = _sha256(path)
            except OSError as exc:
                problems.append(f"{name} cannot be read ({exc.strerror})")
                continue
            if now != sha:
                problems.append(f"{name} changed after it was signed (sha256 differs)")
        signature, problem = _check_ssh(record, allowed_signers)
        if problem:
            problems.append(problem)
        out.append(RecordCheck(record, tuple(problems), signature))
    return out
