"""The counts of a report, computed once from its rules; every renderer reads them from here.

Every rule falls in exactly one kind, so the kinds add up to the total:

- ``blocking_fail``: a blocking rule beyond its fail level;
- ``advisory_fail``: an advisory rule beyond its fail level (it makes the release warn);
- ``warn``: beyond the warn level, within the fail level;
- ``inconclusive``: the sample cannot tell (``failing_inconclusive`` holds those
  that fail the release: blocking under ``on_inconclusive: fail``);
- ``waived``, ``pass``, ``error``.

``fails_release`` (blocking fails and failing inconclusive rules, in rule order) and
``warns_release`` (advisory fails, warnings, other inconclusive rules) are
the lists the release verdict follows from (policycheck.engine.verdicts). The
HTML tiles, banner and lists, the Markdown line, the console line, the
JUnit counts and the SARIF run properties all read one :class:`Summary`,
and report.json's ``summary`` is its :meth:`Summary.to_json`, so no two
places can count differently.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from policycheck.core.plural import count_of
from policycheck.engine.verdicts import fails_release

#: The kinds, in the order reports show them, with the words they are shown with.
KINDS = {
    "blocking_fail": "blocking failures",
    "advisory_fail": "advisory failures",
    # NOTE: "warned" as report.json's summary.warned counts them; summary.warnings lists every rule that
    # makes the release warn (warnings, advisory failures, inconclusive rules that do not fail it).
    "warn": "warned",
    "inconclusive": "inconclusive",
    "waived": "waived",
    "pass": "passed",
    "error": "errors",
}


def kind_of(rule: dict[str, Any]) -> str:
    """The one kind a rule record (``verdict``, ``severity``) falls in."""
    verdict: str = rule["verdict"]
    if verdict == "fail":
        return "blocking_fail" if rule["severity"] == "blocking" else "advisory_fail"
    return verdict


@dataclass(frozen=True)
class Summary:
    """Rule ids by kind, and the lists that decide the release verdict."""

    total: int
    ids: dict[str, list[str]]
    fails_release: list[str]
    warns_release: list[str]
    failing_inconclusive: list[str]
    unused_waivers: list[str]

    def count(self, kind: str) -> int:
        return len(self.ids[kind])

    @property
    def counts(self) -> dict[str, int]:
        return {kind: len(ids) for kind, ids in self.ids.items()}

    def counts_text(self) -> str:
        """``12 rules: blocking failures 1, advisory failures 0, ...``: the counts every format shows, in one line."""
        return f"{count_of(self.total, 'rule')}: " + ", ".join(f"{words} {self.count(k)}" for k, words in KINDS.items())

    def to_json(self) -> dict[str, Any]:
        """report.json's ``summary`` (schemas/report.schema.json)."""
        return {
            "total": self.total,
            "passed": self.count("pass"),
            "warned": self.count("warn"),
            "failed": self.count("blocking_fail") + self.count("advisory_fail"),
            "blocking_failed": self.count("blocking_fail"),
            "advisory_failed": self.count("advisory_fail"),
            "inconclusive": self.count("inconclusive"),
            "waived": self.count("waived"),
            "errors": self.count("error"),
            "blocking_failures": list(self.fails_release),
            "warnings": list(self.warns_release),
            "inconclusive_rules": list(self.ids["inconclusive"]),
            "waived_rules": list(self.ids["waived"]),
            "unused_waivers": list(self.unused_waivers),
        }


def summarize_rules(rules: list[dict[str, Any]], unused_waivers: list[str]) -> Summary:
    """The summary of rule records (as report.json's ``rules`` holds them)."""
    ids: dict[str, list[str]] = {kind: [] for kind in KINDS}
    for rule in rules:
        ids[kind_of(rule)].append(rule["id"])
    failing = [r["id"] for r in rules if fails_release(r)]
    warns = [r["id"] for r in rules if r["verdict"] in ("warn", "fail", "inconclusive") and not fails_release(r)]
    return Summary(
        total=len(rules),
        ids=ids,
        fails_release=failing,
        warns_release=warns,
        failing_inconclusive=[i for i in ids["inconclusive"] if i in failing],
        unused_waivers=list(unused_waivers),
    )


def summarize(report: dict[str, Any]) -> Summary:
    """The summary of a report dict: from its rules (report.json keeps only the unused waivers beside them)."""
    return summarize_rules(report["rules"], report["summary"].get("unused_waivers", []))
