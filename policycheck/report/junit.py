"""report.json to JUnit XML, the test-report format every CI system reads.

JUnit has no formal standard; this follows the de facto Ant/Jenkins shape:
``testsuites > testsuite > (properties, testcase*)``. One test case per
rule, named by the rule id, so CI tracks each rule's history:

- blocking fail: ``<failure type="fail">``;
- error (the evaluator could not run): ``<error>``;
- waived: ``<skipped>`` with the waiver's reason, approver and expiry;
- inconclusive (the sample cannot tell): ``<failure type="inconclusive">``
  when it fails the release (a blocking rule under ``on_inconclusive:
  fail``), else ``<skipped>`` whose message starts ``inconclusive:`` (not a
  pass, not a failure; the ``verdict`` property says which);
- warn, and fail of an advisory rule: no failure element (CI must not
  fail on a warning), but the test case's ``verdict`` property and its
  ``system-out`` say so. When the run treated warnings as failures
  (``--fail-on-warn``, visible in report.json as verdict ``warn`` with
  exit code 1) they, and inconclusive rules that only warn, become
  ``<failure type="warning">``.

What the policy leaves untested (:func:`policycheck.report.decision.untested_gaps`)
is a suite property ``not_tested:<id>`` per gap, and a line of the suite's
``system-out``: a PASS in CI shows its scope.

Rendered from the report dict alone.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from typing import Any

from policycheck.engine.verdicts import fails_release
from policycheck.report.decision import untested_gaps
from policycheck.report.formatting import VERDICT_WORDS, interval_of, measured_text, threshold_text
from policycheck.report.summary import Summary, summarize

#: Characters XML 1.0 cannot carry, even escaped (control characters).
_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _clean(text: Any) -> str:
    """Text safe for XML 1.0: values from the data may hold control characters."""
    return _NOT_XML.sub("\ufffd", "" if text is None else str(text))


def _el(parent: ET.Element, tag: str, text: str | None = None, **attrs: Any) -> ET.Element:
    el = ET.SubElement(parent, tag, {k: _clean(v) for k, v in attrs.items() if v is not None})
    if text is not None:
        el.text = _clean(text)
    return el


def warnings_fail(report: dict[str, Any]) -> bool:
    """Whether the run turned warnings into failures (``--fail-on-warn``)."""
    return bool(report["provenance"]["fail_on_warn"])


def verdict_of(rule: dict[str, Any]) -> str:
    """The rule's verdict before any waiver."""
    verdict: str = rule["verdict_before_waiver"] if rule["verdict"] == "waived" else rule["verdict"]
    return verdict


def _measured(rule: dict[str, Any]) -> str:
    if rule["error"]:
        return f"not evaluated: {rule['error']}"
    return f"measured {measured_text(rule)}; threshold: {threshold_text(rule['threshold'])}"


def _system_out(rule: dict[str, Any]) -> str:
    loc = rule["policy_location"]
    where = loc["file"] + (f":{loc['line']}" if loc.get("line") else "")
    lines = [
        f"verdict: {rule['verdict']} ({rule['severity']} rule)",
        f"{rule['metric']}: {rule['summary']}",
        _measured(rule),
    ]
    if rule.get("verdict_reason"):
        lines.append(rule["verdict_reason"])
    if rule["waiver"]:
        w = rule["waiver"]
        lines.append(
            f"waived (was {rule['verdict_before_waiver']}) by {w['approved_by']} until {w['expires']}: {w['reason']}"
        )
    if rule["meaning"]:
        lines.append(f"what it means: {rule['meaning']}")
    if rule["remedy"] and rule["verdict"] in ("fail", "warn", "waived", "inconclusive"):
        lines.append(f"what to do: {rule['remedy']}")
    lines.append(f"policy: {where}")
    return "\n".join(lines) + "\n"


def _testcase(suite: ET.Element, rule: dict[str, Any], classname: str, warn_fails: bool) -> str | None:
    """Add one rule's test case; returns its JUnit outcome (failure, error, skipped or None)."""
    case = _el(suite, "testcase", name=rule["id"], classname=classname, time=f"{rule['seconds']:.3f}")
    props = _el(case, "properties")
    interval = rule["interval"] or [None, None]
    for name, value in (
        ("verdict", rule["verdict"]),
        ("severity", rule["severity"]),
        ("metric", rule["metric"]),
        ("family", rule["family"]),
        ("value", rule["value"]),
        ("compared_value", rule["compared_value"]),
        ("interval_lower", interval[0]),
        ("interval_upper", interval[1]),
        ("interval_of", interval_of(rule, full=True) or None),
        ("threshold", threshold_text(rule["threshold"])),
        ("raw", rule.get("raw")),
        ("baseline", rule.get("baseline")),
        ("records_to_settle", rule.get("records_to_settle")),
        ("on_inconclusive", rule.get("on_inconclusive") if verdict_of(rule) == "inconclusive" else None),
        ("policy_location", f"{rule['policy_location']['file']}:{rule['policy_location'].get('line') or ''}"),
    ):
        if value is not None:
            _el(props, "property", name=name, value=repr(value) if isinstance(value, float) else value)
    verdict, outcome = rule["verdict"], None
    message = f"{rule['id']}: {_measured(rule)}"
    if verdict == "error":
        _el(case, "error", rule["error"], message=message, type="EvaluationError")
        outcome = "error"
    elif verdict == "waived":
        w = rule["waiver"]
        _el(case, "skipped", message=f"waived by {w['approved_by']} until {w['expires']}: {w['reason']}")
        outcome = "skipped"
    elif verdict == "fail" and rule["severity"] == "blocking":
        _el(case, "failure", rule["remedy"] or None, message=message, type="fail")
        outcome = "failure"
    elif verdict == "inconclusive" and fails_release(rule):
        _el(
            case,
            "failure",
            rule.get("verdict_reason") or None,
            message=f"{message} (inconclusive; on_inconclusive: fail)",
            type="inconclusive",
        )
        outcome = "failure"
    elif verdict in ("warn", "fail", "inconclusive") and warn_fails:
        kind = {"warn": "warning", "fail": "advisory-fail", "inconclusive": "inconclusive"}[verdict]
        _el(case, "failure", rule["remedy"] or None, message=f"{message} ({kind}; --fail-on-warn)", type="warning")
        outcome = "failure"
    elif verdict == "inconclusive":
        reason = rule.get("verdict_reason") or message
        _el(case, "skipped", message=f"inconclusive: {reason}")
        outcome = "skipped"
    _el(case, "system-out", _system_out(rule))
    return outcome


def junit_counts(s: Summary, warn_fails: bool) -> dict[str, int]:
    """JUnit's tests, failures, errors and skipped from the summary (one test case per rule, see above)."""
    passing_inconclusive = s.count("inconclusive") - len(s.failing_inconclusive)
    failures = s.count("blocking_fail") + len(s.failing_inconclusive)
    skipped = s.count("waived")
    if warn_fails:
        failures += s.count("advisory_fail") + s.count("warn") + passing_inconclusive
    else:
        skipped += passing_inconclusive
    return {"tests": s.total, "failures": failures, "errors": s.count("error"), "skipped": skipped}


def render_junit(report: dict[str, Any]) -> str:
    """The report as a JUnit XML document (one ``testsuite``, one ``testcase`` per rule)."""
    prov = report["provenance"]
    root = ET.Element("testsuites", name="policycheck")
    # NOTE: the Ant schema's timestamp has no time zone; report times are UTC.
    timestamp = report["generated_at"][:19]
    suite = _el(
        root,
        "testsuite",
        name=f"{report['policy']['id']} on {report['release']['id']}",
        timestamp=timestamp,
        package="policycheck",
        id="0",
    )
    props = _el(suite, "properties")
    properties = [
        ("tool", prov["tool"]),
        ("tool_version", prov["tool_version"]),
        ("tool_source_sha256", prov.get("tool_source_sha256")),
        ("policy_id", report["policy"]["id"]),
        ("policy_version", report["policy"]["version"]),
        ("policy_path", report["policy"]["path"]),
        ("policy_sha256", prov["policy_files"][0]["sha256"] if prov["policy_files"] else None),
        ("release_id", report["release"]["id"]),
        ("release_manifest_sha256", report["release"]["manifest_sha256"]),
        ("seed", prov["seed"]),
        ("confidence", prov["confidence"]),
        ("attacker_model", report["policy"]["attacker_model"]),
        ("verdict", report["verdict"]),
        ("exit_code", report["exit_code"]),
        ("report_schema_version", report["schema_version"]),
        ("run_id", prov.get("run_id")),
        ("report_sha256", (prov.get("integrity") or {}).get("report_sha256")),
    ]
    properties += [(f"sha256:{f['path']}", f["sha256"]) for f in prov["data_files"]]
    for name, value in properties:
        if value is not None:
            _el(props, "property", name=name, value=value)
    summary = summarize(report)
    for kind, n in summary.counts.items():
        _el(props, "property", name=f"count:{kind}", value=n)
    gaps = untested_gaps(report)
    for gap in gaps:
        _el(props, "property", name=f"not_tested:{gap.id}", value=gap.text)
    warn_fails = warnings_fail(report)
    for rule in report["rules"]:
        _testcase(suite, rule, report["policy"]["id"], warn_fails)
    counts: dict[str, object] = {
        **junit_counts(summary, warn_fails),
        "time": f"{sum(r['seconds'] for r in report['rules']) + sum(prov['intermediate_seconds'].values()):.3f}",
    }
    for el in (root, suite):
        for key, value in counts.items():
            el.set(key, str(value))
    _el(
        suite,
        "system-out",
        f"policycheck {prov['tool_version']}: {VERDICT_WORDS[report['verdict']]} "
        f"(exit code {report['exit_code']})\n{summary.counts_text()}\n"
        + "".join(f"not tested: {gap.text}\n" for gap in gaps),
    )
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
