"""What differs between a report and its re-run (verify) or between two reports (diff), field by field."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from policycheck.report.integrity import is_context, path_matches, path_text

#: Numbers closer than this, relative to the larger, count as identical.
RELATIVE_TOLERANCE = 1e-12


#: Rule verdicts from best to worst, for ``diff --fail-on-worse``.
VERDICT_ORDER = ("pass", "waived", "warn", "inconclusive", "fail", "error")


#: Rule fields compared by ``verify`` and ``diff``.
COMPARED = ("verdict", "value", "compared_value", "interval")


@dataclass(frozen=True)
class Difference:
    """One thing that is not as the report says (verify) or changed (diff)."""

    kind: str  # "file", "rule", "added", "removed", "release"
    subject: str  # a path or input, a rule id, or the release id
    field: str = ""  # sha256, verdict, value, compared_value, interval, ...
    old: Any = None
    new: Any = None
    at: str = ""  # the report.json field (JSON path) that holds the differing value, if any

    def __str__(self) -> str:
        where = f" (at {self.at})" if self.at and self.at != self.subject else ""
        if self.kind == "field":
            return f"field {self.subject}: report says {show_value(self.old)}, re-run gives {show_value(self.new)}"
        if self.kind == "sealed":
            return f"field {self.subject}: does not match its digest in provenance.integrity (edited after the run)"
        if self.kind == "output":
            return f"file {self.subject}: {self.field}"
        if self.kind == "not-rerun":
            return f"rule {self.subject}: not re-run: {self.field}"
        if self.kind == "file":
            return f"file {self.subject}: {self.field} {show_value(self.old)} -> {show_value(self.new)}{where}"
        if self.kind == "added":
            return f"rule {self.subject}: added ({show_value(self.new)})"
        if self.kind == "removed":
            return f"rule {self.subject}: removed (was {show_value(self.old)})"
        if self.kind == "release":
            return f"{self.field}: {show_value(self.old)} -> {show_value(self.new)}"
        return f"{self.kind} {self.subject}: {self.field} {show_value(self.old)} -> {show_value(self.new)}"

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "subject": self.subject, "field": self.field, "old": self.old, "new": self.new}
        return {**out, "at": self.at} if self.at else out


def show_value(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(show_value(v) for v in value) + "]"
    if value is None:
        return "none"
    return str(value)


def same_number(a: Any, b: Any) -> bool:
    """Equal, or floats within ``RELATIVE_TOLERANCE`` of each other."""
    if a is None or b is None:
        return a is b
    if isinstance(a, list) or isinstance(b, list):
        return isinstance(a, list) and isinstance(b, list) and len(a) == len(b) and all(map(same_number, a, b))
    return a == b or math.isclose(float(a), float(b), rel_tol=RELATIVE_TOLERANCE, abs_tol=0.0)


def compare_rules(old: dict[str, Any], new: dict[str, Any]) -> list[Difference]:
    """Rules added, removed, or whose verdict, value, compared value or interval differ."""
    before = {r["id"]: r for r in old["rules"]}
    after = {r["id"]: r for r in new["rules"]}
    out: list[Difference] = []
    for rule_id, rule in before.items():
        if rule_id not in after:
            out.append(Difference("removed", rule_id, old=f"{rule['verdict']}, {show_value(rule['value'])}"))
            continue
        other = after[rule_id]
        if rule["verdict"] != other["verdict"]:
            out.append(Difference("rule", rule_id, "verdict", rule["verdict"], other["verdict"]))
        for key in COMPARED[1:]:
            # NOTE: with compare: estimate the compared value is the value;
            # listing both would double every change.
            redundant = (
                key == "compared_value" and rule["threshold"]["compare"] == other["threshold"]["compare"] == "estimate"
            )
            if not redundant and not same_number(rule[key], other[key]):
                out.append(Difference("rule", rule_id, key, rule[key], other[key]))
    for rule_id, rule in after.items():
        if rule_id not in before:
            out.append(Difference("added", rule_id, new=f"{rule['verdict']}, {show_value(rule['value'])}"))
    return out


_MISSING = "(absent)"
#: Fields a report records only since a later build of policycheck (added within schema 1): one made
#: before lacks them, and a re-run that has them differs in nothing the report said. (A field deleted
#: from a report that had it breaks the report's seal, which verify names.)
RECORDED_SINCE = (
    "release.role_sources",
    "rules.*.detail_fields",
    "rules.*.sample_unit",
    "rules.*.interval_of",
    "provenance.synthesizer_files",
    "release.person_key",
    "release.datasets.*.people",
    "rules.*.details.attacks.*.effective_records",
)

#: Entries of a list that a report records only since a schema version: (the list's path, the key
#: such an entry holds, the version). A re-run of an older report leaves them out of the comparison,
#: as the check that wrote it did: what it recorded is compared, and nothing it could not record.
RECORDED_ENTRIES_SINCE = (
    (("provenance", "synthesizer_files"), "imported_by", (1, 6)),  # modules a named script imports
    (("provenance", "synthesizer_files"), "module", (1, 7)),  # a module run with python -m, and its imports
)
#: Findings a report states only since a schema version, by how they begin.
RECORDED_FINDINGS_SINCE = (("synthesizer command: ", (1, 8)),)  # where a script imports by a computed name
#: Since when a script's ``importlib.import_module("name")`` brings its module in as ``import name`` does.
NAMED_IMPORT_MODULE_SINCE = (1, 8)


def _version(report: dict[str, Any]) -> tuple[int, ...]:
    """A report's ``schema_version`` as numbers (``()`` when it is not one)."""
    try:
        return tuple(int(part) for part in str(report.get("schema_version", "")).split("."))
    except ValueError:
        return ()


def same_format(old: dict[str, Any], new: dict[str, Any]) -> bool:
    """Whether ``new`` is written in ``old``'s report format or a later minor version of it.

    A re-run by newer policycheck writes the newer minor version (fields added, none changed): its
    ``schema_version`` differs from the report's without anything the report said differing.
    """
    before, after = _version(old), _version(new)
    return bool(before) and bool(after) and before[:1] == after[:1] and before <= after


def _same_leaf(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return same_number(a, b)
    same: bool = a == b
    return same


def compare_fields(old: Any, new: Any, path: tuple[str | int, ...], out: list[Difference]) -> None:
    """Every leaf of ``old`` and ``new`` under ``path`` that differs, context fields aside."""
    if is_context(path):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in dict.fromkeys([*old, *new]):
            if key not in old and any(path_matches((*path, key), p) for p in RECORDED_SINCE):
                continue
            if key not in old or key not in new:
                if not is_context((*path, key)):
                    out.append(
                        Difference(
                            "field", path_text((*path, key)), old=old.get(key, _MISSING), new=new.get(key, _MISSING)
                        )
                    )
                continue
            compare_fields(old[key], new[key], (*path, key), out)
    elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        for i, (a, b) in enumerate(zip(old, new, strict=False)):
            compare_fields(a, b, (*path, i), out)
    elif isinstance(old, (dict, list)) or isinstance(new, (dict, list)):
        if old != new:
            out.append(Difference("field", path_text(path), old=old, new=new))
    elif not _same_leaf(old, new):
        out.append(Difference("field", path_text(path), old=old, new=new))


def compare_reports(old: dict[str, Any], new: dict[str, Any], skipped: dict[str, str]) -> list[Difference]:
    """Everything the re-run re-derives: rules (by id), release, policy, waivers, summary, provenance."""
    out = [d for d in compare_rules(old, new) if d.subject not in skipped]
    after = {r["id"]: r for r in new["rules"]}
    for i, rule in enumerate(old["rules"]):
        other = after.get(rule["id"])
        if other is None or rule["id"] in skipped:
            continue
        # verdict, value and interval are compare_rules' job; it leaves out the
        # compared value when it repeats the value, which an edit may break.
        if not same_number(rule["compared_value"], other["compared_value"]) and not any(
            d.subject == rule["id"] and d.field == "compared_value" for d in out
        ):
            out.append(
                Difference("rule", rule["id"], "compared_value", rule["compared_value"], other["compared_value"])
            )
        rest = {k: v for k, v in rule.items() if k not in COMPARED}
        compare_fields(rest, {k: v for k, v in other.items() if k not in COMPARED}, ("rules", i), out)
    aggregates = ("verdict", "exit_code", "summary") if skipped else ("verdict", "exit_code")
    if not skipped:
        for key in ("verdict", "exit_code"):
            if old[key] != new[key]:
                out.append(Difference("release", old["release"]["id"], f"release {key}", old[key], new[key]))
    formats = ("schema_version",) if same_format(old, new) else ()
    top_old = {k: v for k, v in old.items() if k not in ("rules", *aggregates, *formats)}
    top_new = {k: v for k, v in new.items() if k not in ("rules", *aggregates, *formats)}
    if skipped:  # the re-run describes the methods of the rules it ran: a rule not re-run is already listed
        ran = {r["metric"] for r in old["rules"] if r["id"] not in skipped}
        top_old["methods"] = [m for m in old.get("methods", []) if m.get("metric") in ran]
    top_old["provenance"] = {k: v for k, v in old["provenance"].items() if k != "integrity"}
    top_new["provenance"] = {k: v for k, v in new["provenance"].items() if k != "integrity"}
    compare_fields(top_old, as_recorded_by(top_new, _version(old), top_old), (), out)
    return out


def as_recorded_by(
    report: dict[str, Any], version: tuple[int, ...], recorded: dict[str, Any] | None = None
) -> dict[str, Any]:
    """``report`` without what a report of schema ``version`` does not record: list entries
    (:data:`RECORDED_ENTRIES_SINCE`), findings (:data:`RECORDED_FINDINGS_SINCE`) and, before
    :data:`NAMED_IMPORT_MODULE_SINCE`, imported modules ``recorded`` (that older report) does not
    list; ``report`` itself is left as it is.

    A module the re-run lists and the older report does not is one its check could not find (an
    ``import_module("name")``): the script that imports it is hashed in both, so a script changed to
    import another module is still a difference.
    """
    for (section, name), key, since in RECORDED_ENTRIES_SINCE:
        held = report.get(section)
        if version >= since or not isinstance(held, dict) or not isinstance(held.get(name), list):
            continue
        kept = [e for e in held[name] if not (isinstance(e, dict) and key in e)]
        report = {**report, section: {**held, name: kept}}
    release = report.get("release")
    if isinstance(release, dict) and isinstance(release.get("findings"), list):
        later = tuple(start for start, since in RECORDED_FINDINGS_SINCE if version < since)
        if later:
            kept = [f for f in release["findings"] if not (isinstance(f, str) and f.startswith(later))]
            report = {**report, "release": {**release, "findings": kept}}
    held = report.get("provenance")
    if version < NAMED_IMPORT_MODULE_SINCE and recorded is not None and isinstance(held, dict):
        files = held.get("synthesizer_files")
        before = (recorded.get("provenance") or {}).get("synthesizer_files") or []
        listed = {e.get("file") for e in before if isinstance(e, dict)}
        if isinstance(files, list):
            kept = [
                e for e in files if not (isinstance(e, dict) and "imported_by" in e and e.get("file") not in listed)
            ]
            report = {**report, "provenance": {**held, "synthesizer_files": kept}}
    return report
