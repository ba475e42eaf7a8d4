"""``diff``: what changed from one report to the next: rules, verdicts and values, input files, context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from policycheck.interfaces.verify.differences import VERDICT_ORDER, Difference, compare_rules


@dataclass
class ReportDiff:
    """What changed between two reports."""

    old: dict[str, Any]
    new: dict[str, Any]
    rules: list[Difference]
    files: list[Difference]
    context: list[Difference]

    @property
    def worse(self) -> list[str]:
        """Ids of rules whose verdict got worse (a new rule counts from pass)."""
        before = {r["id"]: r["verdict"] for r in self.old["rules"]}
        return [
            r["id"]
            for r in self.new["rules"]
            if VERDICT_ORDER.index(r["verdict"]) > VERDICT_ORDER.index(before.get(r["id"], "pass"))
        ]

    @property
    def warnings(self) -> list[str]:
        """What makes the two reports a poor pair to compare: another release, or another policy."""
        out = []
        a, b = self.old["release"]["id"], self.new["release"]["id"]
        if a != b:
            out.append(
                f"the reports are of different releases ('{a}' and '{b}'): a change may come from the data, "
                "not from the synthesizer or the policy"
            )
        if self.old["policy"]["id"] != self.new["policy"]["id"]:
            out.append(
                f"the reports apply different policies ('{self.old['policy']['id']}' and "
                f"'{self.new['policy']['id']}'): their rules and levels need not mean the same"
            )
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "warnings": self.warnings,
            "old": {
                "release": self.old["release"]["id"],
                "verdict": self.old["verdict"],
                "generated_at": self.old["generated_at"],
            },
            "new": {
                "release": self.new["release"]["id"],
                "verdict": self.new["verdict"],
                "generated_at": self.new["generated_at"],
            },
            "rules": [d.to_dict() for d in self.rules],
            "files": [d.to_dict() for d in self.files],
            "context": [d.to_dict() for d in self.context],
            "worse": self.worse,
        }


def diff_reports(old: dict[str, Any], new: dict[str, Any]) -> ReportDiff:
    """Rules whose verdict or value changed (and added/removed ones), release over release."""
    rules = compare_rules(old, new)
    if old["verdict"] != new["verdict"]:
        rules.insert(0, Difference("release", new["release"]["id"], "release verdict", old["verdict"], new["verdict"]))

    # Input files by role and position: the paths and names of two releases
    # usually differ, the roles do not.
    def inputs(report: dict[str, Any]) -> dict[str, str | None]:
        out = {
            ("policy" if i == 0 else f"extended policy {i}"): f["sha256"]
            for i, f in enumerate(report["provenance"]["policy_files"])
        }
        synthetic = [d for d in report["release"]["datasets"] if d["role"] == "synthetic"]
        out.update({d["role"]: d["sha256"] for d in report["release"]["datasets"] if d["role"] != "synthetic"})
        out.update({f"synthetic set {i + 1}": d["sha256"] for i, d in enumerate(synthetic)})
        return out

    a, b = inputs(old), inputs(new)
    files = [
        Difference("file", key, "sha256", a.get(key), b.get(key))
        for key in dict.fromkeys([*a, *b])
        if a.get(key) != b.get(key)
    ]
    context = []
    getters: tuple[tuple[str, Callable[[dict[str, Any]], Any]], ...] = (
        ("release id", lambda r: r["release"]["id"]),
        ("policy version", lambda r: r["policy"]["version"]),
        ("attacker model", lambda r: r["policy"]["attacker_model"]),
        ("seed", lambda r: r["provenance"]["seed"]),
        ("tool version", lambda r: r["provenance"]["tool_version"]),
        ("tool source sha256", lambda r: r["provenance"].get("tool_source_sha256")),
    )
    for label, getter in getters:
        if getter(old) != getter(new):
            context.append(Difference("release", new["release"]["id"], label, getter(old), getter(new)))
    return ReportDiff(old, new, rules, files, context)
