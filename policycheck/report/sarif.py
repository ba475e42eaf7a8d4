"""report.json to SARIF 2.1.0, for code-scanning views (GitHub, GitLab, IDEs).

A policy rule is a SARIF rule (``tool.driver.rules``, id = the rule id).
Each failing or warning rule becomes one result located at the rule's line
in the policy file, so the finding shows up where the rule is written:
level ``error`` for a blocking fail, ``warning`` for a warn or an advisory
fail. An inconclusive rule (the sample cannot tell) that fails the release
(blocking, ``on_inconclusive: fail``) is kind ``fail``, level ``error``;
otherwise it is kind ``open`` ("insufficient information to decide", for
which SARIF requires level ``none``), its message saying how many records
would settle it. A waived rule keeps its result with a ``suppressions`` entry (kind
``external``, status ``accepted``, the waiver's reason as justification).
A rule that could not be evaluated is a tool execution notification, and
makes ``executionSuccessful`` false. What the policy leaves untested
(:func:`policycheck.report.decision.untested_gaps`) is a tool configuration
notification of level ``note`` per gap (descriptor ``not-tested/<id>``), its
ids also in the run's ``notTested`` property. Every file the report names is an
artifact with its SHA-256.

Rendered from the report dict alone.
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from policycheck.engine.verdicts import fails_release
from policycheck.report.decision import GAPS, untested_gaps
from policycheck.report.formatting import interval_of, measured_text, threshold_text
from policycheck.report.summary import summarize

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
EXIT_WORDS = {
    0: "every blocking rule passes",
    1: "a blocking rule fails, or is inconclusive under on_inconclusive: fail (or a rule warns, with --fail-on-warn)",
    3: "a rule could not be evaluated",
}


def artifact_uri(path: str) -> str:
    """A path as the report shows it, as a URI reference: relative stays relative."""
    if PureWindowsPath(path).drive or path.startswith("/"):
        posix = PureWindowsPath(path).as_posix() if PureWindowsPath(path).drive else path
        return "file://" + ("" if posix.startswith("/") else "/") + quote(posix, safe="/:")
    return quote(PurePosixPath(path.replace("\\", "/")).as_posix(), safe="/")


def _kind_level(rule: dict[str, Any]) -> tuple[str, str] | None:
    """SARIF kind and level of a rule's result, None when it gets none (pass, error)."""
    verdict = rule["verdict_before_waiver"] if rule["verdict"] == "waived" else rule["verdict"]
    if verdict == "fail":
        return "fail", "error" if rule["severity"] == "blocking" else "warning"
    if verdict == "warn":
        return "fail", "warning"
    if verdict == "inconclusive":
        if fails_release({**rule, "verdict": verdict}):
            return "fail", "error"
        # NOTE: SARIF 2.1.0 sec. 3.27.9-10: kind "open" is "insufficient
        # information to decide", and any kind but "fail" takes level "none".
        return "open", "none"
    return None


def _descriptor(rule: dict[str, Any]) -> dict[str, Any]:
    help_text = rule["remedy"] or rule["meaning"] or rule["summary"]
    if rule["rationale"]:
        help_text += f" Why this rule: {rule['rationale']}"
    return {
        "id": rule["id"],
        "name": rule["metric"],
        "shortDescription": {"text": rule["summary"]},
        "fullDescription": {"text": rule["meaning"] or rule["summary"]},
        "help": {"text": help_text},
        "defaultConfiguration": {"level": "error" if rule["severity"] == "blocking" else "warning"},
        "properties": {
            "metric": rule["metric"],
            "family": rule["family"],
            "severity": rule["severity"],
            "threshold": rule["threshold"],
            "params": rule["params"],
            "attackerKnowledge": rule["knowledge_words"],
            "tags": ["privacy", rule["family"]],
        },
    }


def _location(rule: dict[str, Any], artifact_index: dict[str, int]) -> dict[str, Any]:
    loc = rule["policy_location"]
    physical: dict[str, Any] = {"artifactLocation": {"uri": artifact_uri(loc["file"])}}
    if loc["file"] in artifact_index:
        physical["artifactLocation"]["index"] = artifact_index[loc["file"]]
    if loc.get("line"):
        physical["region"] = {"startLine": loc["line"], **({"startColumn": loc["col"]} if loc.get("col") else {})}
    return {"physicalLocation": physical}


def _message(rule: dict[str, Any]) -> str:
    verdict = rule["verdict_before_waiver"] if rule["verdict"] == "waived" else rule["verdict"]
    words = {"fail": "fails", "warn": "warns", "inconclusive": "is inconclusive"}[verdict]
    text = (
        f"Rule {rule['id']} ({rule['metric']}) {words}: measured {measured_text(rule)}; "
        f"threshold: {threshold_text(rule['threshold'])}."
    )
    if rule.get("verdict_reason"):
        text += " " + rule["verdict_reason"]
    if rule["meaning"]:
        text += f" {rule['meaning']}"
    return text


def _result(rule: dict[str, Any], rule_index: int, policy_id: str, artifact_index: dict[str, int]) -> dict[str, Any]:
    kind, level = _kind_level(rule)  # type: ignore[misc]
    result: dict[str, Any] = {
        "ruleId": rule["id"],
        "ruleIndex": rule_index,
        "kind": kind,
        "level": level,
        "message": {"text": _message(rule)},
        "locations": [_location(rule, artifact_index)],
        # NOTE: a stable identity across releases, so code scanning tracks a
        # rule's finding from one report to the next instead of reopening it.
        "partialFingerprints": {"policycheckRule/v1": f"{policy_id}/{rule['id']}"},
        "properties": {
            "verdict": rule["verdict"],
            "severity": rule["severity"],
            "value": rule["value"],
            "comparedValue": rule["compared_value"],
            "interval": rule["interval"],
            # NOTE: only where the metric gives it, so the SARIF of every other rule reads as it did.
            **({"intervalOf": interval_of(rule, full=True)} if interval_of(rule) else {}),
            "confidence": rule["confidence"],
            "raw": rule.get("raw"),
            "baseline": rule.get("baseline"),
            "recordsToSettle": rule.get("records_to_settle"),
        },
    }
    if rule["waiver"]:
        w = rule["waiver"]
        justification = f"{w['reason']} (approved by {w['approved_by']}, expires {w['expires']}"
        justification += f", ticket {w['ticket']})" if w["ticket"] else ")"
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": justification,
                "properties": {"approvedBy": w["approved_by"], "expires": w["expires"], "ticket": w["ticket"]},
            }
        ]
    return result


def _artifacts(report: dict[str, Any]) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Every file the report names, with its hash; and each path's index."""
    prov = report["provenance"]
    files = [(f, ["analysisTarget", "userSpecifiedConfiguration"]) for f in prov["policy_files"]]
    if prov["manifest"]:
        files.append((prov["manifest"], ["analysisTarget", "referencedOnCommandLine"]))
    files += [(f, ["analysisTarget"]) for f in prov["data_files"]]
    artifacts: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for f, roles in files:
        if f["path"] not in index:
            index[f["path"]] = len(artifacts)
            artifacts.append(
                {"location": {"uri": artifact_uri(f["path"])}, "roles": roles, "hashes": {"sha-256": f["sha256"]}}
            )
    return artifacts, index


def build_sarif(report: dict[str, Any]) -> dict[str, Any]:
    """The report as a SARIF 2.1.0 log (a dict)."""
    prov = report["provenance"]
    rules = report["rules"]
    artifacts, artifact_index = _artifacts(report)
    summary = summarize(report)
    results = [
        _result(rule, i, report["policy"]["id"], artifact_index)
        for i, rule in enumerate(rules)
        if _kind_level(rule) is not None
    ]
    notifications = [
        {
            "level": "error",
            "message": {"text": f"Rule {rule['id']} ({rule['metric']}) could not be evaluated: {rule['error']}"},
            "associatedRule": {"id": rule["id"], "index": i},
            "locations": [_location(rule, artifact_index)],
        }
        for i, rule in enumerate(rules)
        if rule["verdict"] == "error"
    ]
    invocation: dict[str, Any] = {
        "executionSuccessful": not notifications,
        "exitCode": report["exit_code"],
        "exitCodeDescription": EXIT_WORDS.get(report["exit_code"], ""),
        "commandLine": " ".join(prov["command"]),
        "arguments": prov["command"][1:],
        "startTimeUtc": _utc(prov["started_at"]),
        "endTimeUtc": _utc(prov["finished_at"]),
    }
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    gaps = untested_gaps(report)
    if gaps:  # the policy is the tool's configuration: what it leaves untested is a note about it
        invocation["toolConfigurationNotifications"] = [
            {"level": "note", "descriptor": {"id": f"not-tested/{gap.id}"}, "message": {"text": gap.text}}
            for gap in gaps
        ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": prov["tool"],
                        "version": prov["tool_version"],
                        "semanticVersion": prov["tool_version"],
                        "rules": [_descriptor(rule) for rule in rules],
                        "notifications": [
                            {"id": f"not-tested/{gap.id}", "shortDescription": {"text": GAPS[gap.id]}} for gap in gaps
                        ],
                    }
                },
                "automationDetails": {"id": f"policycheck/{report['policy']['id']}/"},
                "invocations": [invocation],
                "artifacts": artifacts,
                "columnKind": "unicodeCodePoints",
                "results": results,
                "properties": {
                    "policyId": report["policy"]["id"],
                    "policyVersion": report["policy"]["version"],
                    "releaseId": report["release"]["id"],
                    "verdict": report["verdict"],
                    "counts": summary.counts,
                    "failsRelease": summary.fails_release,
                    "seed": prov["seed"],
                    "attackerModel": report["policy"]["attacker_model"],
                    "notTested": [gap.id for gap in gaps],
                    "runId": prov.get("run_id"),
                    "reportSha256": (prov.get("integrity") or {}).get("report_sha256"),
                },
            }
        ],
    }


def _utc(stamp: str) -> str:
    """ISO time with +00:00 as SARIF's ``Z`` form."""
    return stamp.replace("+00:00", "Z")


def render_sarif(report: dict[str, Any]) -> str:
    return json.dumps(build_sarif(report), indent=2, ensure_ascii=False) + "\n"
