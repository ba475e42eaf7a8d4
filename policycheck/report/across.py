"""Reading across runs: one release against the last (``policycheck diff --format html``) and every
report under a folder (``policycheck index``), as self-contained HTML pages.

Both read report.json dicts only (and the change list verify.diff_reports makes), like the
other renderers, and escape every value from the data.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from policycheck.report.formatting import VERDICT_WORDS, fmt, interval_text, threshold_text
from policycheck.report.integrity import unsealed_fields
from policycheck.report.render import _environment
from policycheck.report.summary import summarize


def rule_rows(old: dict[str, Any], new: dict[str, Any]) -> list[dict[str, Any]]:
    """Every rule of either report, by id: both verdicts and values, and whether it moved."""
    before = {r["id"]: r for r in old["rules"]}
    after = {r["id"]: r for r in new["rules"]}
    rows = []
    for rule_id in dict.fromkeys([*after, *before]):
        a, b = before.get(rule_id), after.get(rule_id)
        either = b or a
        assert either is not None, "every id comes from one of the two reports"
        shown = [_value(r) for r in (a, b)]
        # NOTE: the numbers decide: a report written before intervals said what they are of has not moved.
        moved = a is None or b is None or a["verdict"] != b["verdict"] or _value(a, False) != _value(b, False)
        rows.append(
            {
                "id": rule_id,
                "metric": either["metric"],
                "old_verdict": a and a["verdict"],
                "new_verdict": b and b["verdict"],
                "old_value": shown[0],
                "new_value": shown[1],
                "moved": moved,
                "threshold": threshold_text(either["threshold"]),
                "reason": either.get("decision") or either.get("verdict_reason"),
            }
        )
    return rows


def _value(rule: dict[str, Any] | None, with_of: bool = True) -> str | None:
    """A rule's value and interval as the comparison shows it."""
    if rule is None:
        return None
    return fmt(rule["value"]) + interval_text(rule, with_of) if not rule["error"] else "not evaluated"


def render_diff_html(old: dict[str, Any], new: dict[str, Any], changes: dict[str, Any]) -> str:
    """The HTML comparison of two reports: what moved first, then every rule with both values."""
    rows = rule_rows(old, new)
    return (
        _environment()
        .get_template("diff.html.j2")
        .render(
            old=old,
            new=new,
            changes=changes,
            moved=[r for r in rows if r["moved"]],
            rows=rows,
            VERDICT_WORDS=VERDICT_WORDS,
        )
    )


def signoff_of(path: Path) -> dict[str, Any]:
    """The sign-off records beside a report, each checked against the report files (report/signoff.py)."""
    from policycheck.report.signoff import check_records

    try:
        checks = check_records(path)
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        return {"records": [], "status": f"unreadable: {exc}"}
    records = [
        {
            "decision": c.record.get("decision"),
            "name": (c.record.get("signer") or {}).get("name"),
            "role": (c.record.get("signer") or {}).get("role"),
            "signed_at": c.record.get("signed_at"),
            "review_by": c.record.get("review_by"),
            "ok": c.ok,
            "ssh": bool(c.record.get("ssh")),
        }
        for c in checks
    ]
    if not checks:
        status = "not signed"
    elif all(c.ok for c in checks):
        status = "verified: matches the report"
    else:
        status = "FAILS: a record does not match the report"
    return {"records": records, "status": status}


def index_entries(
    reports: list[tuple[Path, dict[str, Any]]],
    root: Path,
    since: str | None = None,
    until: str | None = None,
    verdicts: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """One row per report: where it is (its HTML if written beside it), verdict, date, counts, sign-off,
    waivers and policy hash; newest first; only those generated within [since, until] (dates, UTC) and
    with one of ``verdicts``, when given."""
    entries = []
    for path, report in reports:
        day = report["generated_at"][:10]
        if (since and day < since) or (until and day > until) or (verdicts and report["verdict"] not in verdicts):
            continue
        policy_files = report["provenance"].get("policy_files") or []
        page = path.with_name("report.html")
        link = (page if page.is_file() else path).relative_to(root).as_posix()
        entries.append(
            {
                "link": link,
                "folder": path.parent.relative_to(root).as_posix() or ".",
                "release": report["release"]["id"],
                "policy": report["policy"]["id"],
                "policy_version": report["policy"]["version"],
                "verdict": report["verdict"],
                "generated_at": report["generated_at"],
                "counts": summarize(report).counts_text(),
                "policy_sha256": policy_files[0]["sha256"] if policy_files else None,
                "waivers": [{"rule": w["rule"], "expires": w["expires"]} for w in report.get("waivers", [])],
                "signoff": signoff_of(path),
                # Its verdict is the report's word only while every field matches its seal.
                "edited": report["provenance"].get("integrity") is None or bool(unsealed_fields(report)),
            }
        )
    return sorted(entries, key=lambda e: e["generated_at"], reverse=True)


def render_index_html(
    entries: list[dict[str, Any]], root: Path, unreadable: list[tuple[str, str]], filters: str = ""
) -> str:
    return (
        _environment()
        .get_template("index.html.j2")
        .render(entries=entries, root=str(root), unreadable=unreadable, VERDICT_WORDS=VERDICT_WORDS, filters=filters)
    )
