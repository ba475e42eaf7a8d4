"""Check a report against its sources (``verify``) and two reports against each other (``diff``).

``policycheck verify report.json`` is for the auditor who reads a report
months later: it re-hashes every file the report names (the policy and
every file it extends, the release manifest, every data file), re-runs the
check with the recorded seed, policy and release, and compares the
verdict, value, compared value and interval of every rule. Numbers match
when equal or within a relative tolerance of ``RELATIVE_TOLERANCE``
(1e-12: floating-point sums may associate differently across worker
processes; anything larger is a real change). Exit codes: 0 identical, 1
something differs (every difference is listed), 2 a file is missing or the
report is not a policycheck report.

``policycheck diff old.json new.json`` lists what changed from one release
(or one run) to the next: rules added or removed, verdicts and values that
changed, and which input files changed. It is a listing and exits 0;
with ``--fail-on-worse`` it exits 1 when a rule's verdict got worse
(pass < waived < warn < inconclusive < fail < error; a new rule counts as if it had passed
before), so a pipeline can stop a release that regressed.

Relative paths in a report are relative to the folder ``check`` ran in;
``verify`` resolves them against the folder the check ran in (recorded in the
report), else the current folder, or ``--root``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from policycheck.compiler import compile_plan
from policycheck.errors import InvalidInput, Problem, display_path
from policycheck.executor import make_executor
from policycheck.policy.load import load_policy
from policycheck.progress import Progress
from policycheck.release.load import build_release, load_manifest, sha256_file
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import Release, SynthesizerInfo
from policycheck.report.build import build_report
from policycheck.report.junit import warnings_fail
from policycheck.report.model import Report
from policycheck.runner import run_plan

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

    def __str__(self) -> str:
        if self.kind == "added":
            return f"rule {self.subject}: added ({_show(self.new)})"
        if self.kind == "removed":
            return f"rule {self.subject}: removed (was {_show(self.old)})"
        if self.kind == "release":
            return f"{self.field}: {_show(self.old)} -> {_show(self.new)}"
        return f"{self.kind} {self.subject}: {self.field} {_show(self.old)} -> {_show(self.new)}"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "subject": self.subject, "field": self.field, "old": self.old, "new": self.new}


def _show(value: Any) -> str:
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_show(v) for v in value) + "]"
    if value is None:
        return "none"
    return str(value)


# --- reading ------------------------------------------------------------------


def read_report(path: Path) -> dict[str, Any]:
    """Load report.json and check it against the published schema (exit 2 if it is not one)."""
    path = Path(path)
    name = display_path(path)
    if not path.is_file():
        raise InvalidInput(Problem(name, "report not found"))
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInput(Problem(name, f"not a JSON file: {exc}")) from None
    try:
        Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InvalidInput(Problem(name, f"not a policycheck report: {where}: {first['msg']}")) from None
    return data


def _resolve(path: str, root: Path) -> Path:
    p = Path(path)
    return p if p.is_absolute() else root / p


# --- numbers --------------------------------------------------------------------


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
            out.append(Difference("removed", rule_id, old=f"{rule['verdict']}, {_show(rule['value'])}"))
            continue
        other = after[rule_id]
        if rule["verdict"] != other["verdict"]:
            out.append(Difference("rule", rule_id, "verdict", rule["verdict"], other["verdict"]))
        for key in COMPARED[1:]:
            # NOTE: with compare: estimate the compared value is the value;
            # listing both would double every change.
            redundant = key == "compared_value" and rule["threshold"]["compare"] == other["threshold"]["compare"] == "estimate"
            if not redundant and not same_number(rule[key], other[key]):
                out.append(Difference("rule", rule_id, key, rule[key], other[key]))
    for rule_id, rule in after.items():
        if rule_id not in before:
            out.append(Difference("added", rule_id, new=f"{rule['verdict']}, {_show(rule['value'])}"))
    return out


# --- verify -----------------------------------------------------------------------


@dataclass
class Verification:
    """What ``verify`` found: the files it re-hashed and every difference."""

    report: dict[str, Any]
    files: list[tuple[str, str]] = field(default_factory=list)  # (path, sha256) confirmed
    differences: list[Difference] = field(default_factory=list)
    rerun: dict[str, Any] | None = None
    #: Why the check could not be re-run (a changed file no longer loads, say).
    problems: list[Problem] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences and not self.problems


def named_files(report: dict[str, Any]) -> list[dict[str, str]]:
    """Every file the report names with a hash: policies, manifest, data."""
    prov = report["provenance"]
    files = [*prov["policy_files"], *([prov["manifest"]] if prov["manifest"] else []), *prov["data_files"]]
    return list({f["path"]: f for f in files}.values())


def rehash(report: dict[str, Any], root: Path) -> tuple[list[tuple[str, str]], list[Difference]]:
    """Hash every named file again; raise InvalidInput naming every missing one."""
    confirmed, changed, missing = [], [], []
    for f in named_files(report):
        path = _resolve(f["path"], root)
        if not path.is_file():
            missing.append(Problem(f["path"], "file named in the report is missing"))
            continue
        sha = sha256_file(path)
        if sha == f["sha256"]:
            confirmed.append((f["path"], sha))
        else:
            changed.append(Difference("file", f["path"], "sha256", f["sha256"], sha))
    if missing:
        raise InvalidInput(missing)
    return confirmed, changed


def rebuild_release(report: dict[str, Any], root: Path) -> Release:
    """The release the report was made from: its manifest, or its files and column types."""
    release = report["release"]
    if release["manifest"]:
        return load_manifest(_resolve(release["manifest"], root))
    ordinal = [c for c, t in release["columns"].items() if t == "ordinal"]
    if ordinal:
        raise InvalidInput(Problem(release["id"], f"ordinal columns {ordinal} need a manifest to give their order"))
    by_role: dict[str, list[dict[str, Any]]] = {}
    for d in release["datasets"]:
        if not d["path"]:
            raise InvalidInput(Problem(release["id"], f"data set {d['name']!r} has no file path: it cannot be re-read"))
        by_role.setdefault(d["role"], []).append(d)
    synthetic = [
        (_resolve(d["path"], root), d["name"], SynthesizerInfo(**(d["synthesizer"] or {})))
        for d in by_role.get("synthetic", [])
    ]
    holdout = by_role.get("holdout")
    return build_release(
        release["id"],
        _resolve(by_role["original"][0]["path"], root),
        synthetic,
        _resolve(holdout[0]["path"], root) if holdout else None,
        {c: ColumnDecl(type=t) for c, t in release["columns"].items()},
    )


def rerun(
    report: dict[str, Any],
    root: Path,
    *,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = False,
    command: list[str] | None = None,
) -> dict[str, Any]:
    """Check the release again with the report's policy and seed; returns the new report.

    Waivers are judged as of the day the report was made, so a waiver that
    has expired since does not make the old report unverifiable.
    """
    prov = report["provenance"]
    release = rebuild_release(report, root)
    made_on = dt.datetime.fromisoformat(report["generated_at"]).date()
    loaded = load_policy(_resolve(prov["policy_files"][0]["path"], root), release, today=made_on)
    plan = compile_plan(loaded, release)
    with make_executor(executor, workers) as pool:
        run = run_plan(plan, release, prov["seed"], pool, Progress(enabled=progress))
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    return build_report(plan, release, run, executor=name, command=command or [], fail_on_warn=warnings_fail(report))


def verify_report(
    path: Path,
    root: Path | None = None,
    *,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = False,
) -> Verification:
    """Re-hash the files ``path`` names and re-run its check; list every difference."""
    report = read_report(path)
    if root is None:
        # Paths in a report are relative to the folder the check ran in.
        ran_in = Path(report["provenance"]["working_directory"])
        root = ran_in if ran_in.is_dir() else Path.cwd()
    root = Path(root)
    confirmed, changed = rehash(report, root)
    result = Verification(report, confirmed, changed)
    try:
        new = rerun(report, root, executor=executor, workers=workers, progress=progress,
                    command=["policycheck", "verify", display_path(path)])
    except InvalidInput as exc:
        # NOTE: keep the hash differences found so far: they usually say why.
        result.problems = exc.problems
        return result
    result.rerun = new
    result.differences += compare_rules(report, new)
    for key in ("verdict", "exit_code"):
        if report[key] != new[key]:
            result.differences.append(Difference("release", report["release"]["id"], f"release {key}", report[key], new[key]))
    return result


# --- diff ---------------------------------------------------------------------------


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

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": {"release": self.old["release"]["id"], "verdict": self.old["verdict"], "generated_at": self.old["generated_at"]},
            "new": {"release": self.new["release"]["id"], "verdict": self.new["verdict"], "generated_at": self.new["generated_at"]},
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
        out = {("policy" if i == 0 else f"extended policy {i}"): f["sha256"]
               for i, f in enumerate(report["provenance"]["policy_files"])}
        synthetic = [d for d in report["release"]["datasets"] if d["role"] == "synthetic"]
        out.update({d["role"]: d["sha256"] for d in report["release"]["datasets"] if d["role"] != "synthetic"})
        out.update({f"synthetic set {i + 1}": d["sha256"] for i, d in enumerate(synthetic)})
        return out

    a, b = inputs(old), inputs(new)
    files = [Difference("file", key, "sha256", a.get(key), b.get(key)) for key in dict.fromkeys([*a, *b]) if a.get(key) != b.get(key)]
    context = []
    for label, getter in (
        ("release id", lambda r: r["release"]["id"]),
        ("policy version", lambda r: r["policy"]["version"]),
        ("attacker model", lambda r: r["policy"]["attacker_model"]),
        ("seed", lambda r: r["provenance"]["seed"]),
        ("tool version", lambda r: r["provenance"]["tool_version"]),
    ):
        if getter(old) != getter(new):
            context.append(Difference("release", new["release"]["id"], label, getter(old), getter(new)))
    return ReportDiff(old, new, rules, files, context)
