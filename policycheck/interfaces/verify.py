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

Relative paths in a report are relative to the folder ``check`` ran in.
``verify`` resolves them against its *root*: the folder holding report.json,
or the folder ``--root`` names (the folder the check ran in, when the report
was written to a sub-folder of it). The root never comes from the report:
a report is a file anyone can write, and one saying it ran in /etc must not
make verify read /etc.

A report may come from someone else, so ``verify`` trusts nothing in it
beyond what it can re-derive or check (see :mod:`policycheck.report.integrity`):

- every field a re-run reproduces is compared with the re-run, and every
  run-context field with its digest; each difference names the JSON path;
- the report files beside report.json (HTML, Markdown, JUnit, SARIF) are
  rendered again from report.json and must be identical;
- it never runs a command the report names: a rule whose synthesizer is the
  release's command is re-run only with ``--manifest``, a manifest the
  auditor names (its hash and each command's hash must match the report);
  otherwise verify says why that rule was not re-run, and does not verify;
- it reads no file outside its root (not to hash it, not to re-run with
  it), whatever the report, the manifest or the policy it names say, unless
  ``show_external`` (``--show-external``): each such file is refused with
  one line and exit 2 (:func:`policycheck.io.files.reads_confined_to`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from policycheck.core.errors import InvalidInput, Problem, display_path
from policycheck.engine.compiler import compile_plan
from policycheck.engine.progress import Progress
from policycheck.engine.runner import run_plan
from policycheck.execution.factory import make_executor
from policycheck.io.files import open_regular, read_json, reads_confined_to, stat_input
from policycheck.policy.load import load_policy
from policycheck.release.load import build_release, load_manifest, sha256_file
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import Release, SynthesizerInfo
from policycheck.report.build import build_report
from policycheck.report.integrity import is_context, path_text, unsealed_fields
from policycheck.report.junit import warnings_fail
from policycheck.report.model import Report

#: Numbers closer than this, relative to the larger, count as identical.
RELATIVE_TOLERANCE = 1e-12
#: Rule verdicts from best to worst, for ``diff --fail-on-worse``.
VERDICT_ORDER = ("pass", "waived", "warn", "inconclusive", "fail", "error")
#: Rule fields compared by ``verify`` and ``diff``.
COMPARED = ("verdict", "value", "compared_value", "interval")
#: Largest report.json read, in bytes (the demo's is 120 kB; a report grows by about 10 kB a rule).
MAX_REPORT_BYTES = 64_000_000
#: Why a file outside the root is not read (the end of the refusal's line).
OUTSIDE = "the folder verify reads: not read (--root DIR names another folder, --show-external reads files outside it)"


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
            return f"field {self.subject}: report says {_show(self.old)}, re-run gives {_show(self.new)}"
        if self.kind == "sealed":
            return f"field {self.subject}: does not match its digest in provenance.integrity (edited after the run)"
        if self.kind == "output":
            return f"file {self.subject}: {self.field}"
        if self.kind == "not-rerun":
            return f"rule {self.subject}: not re-run: {self.field}"
        if self.kind == "file":
            return f"file {self.subject}: {self.field} {_show(self.old)} -> {_show(self.new)}{where}"
        if self.kind == "added":
            return f"rule {self.subject}: added ({_show(self.new)})"
        if self.kind == "removed":
            return f"rule {self.subject}: removed (was {_show(self.old)})"
        if self.kind == "release":
            return f"{self.field}: {_show(self.old)} -> {_show(self.new)}"
        return f"{self.kind} {self.subject}: {self.field} {_show(self.old)} -> {_show(self.new)}"

    def to_dict(self) -> dict[str, Any]:
        out = {"kind": self.kind, "subject": self.subject, "field": self.field, "old": self.old, "new": self.new}
        return {**out, "at": self.at} if self.at else out


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
    """Load report.json and check it against the published schema (exit 2 if it is not one).

    A key written twice, NaN or Infinity, a file over :data:`MAX_REPORT_BYTES`
    or one that is not a regular file is refused before it is parsed
    (:func:`policycheck.io.files.read_json`).
    """
    path = Path(path)
    name = display_path(path)
    if not path.exists() and not path.is_symlink():
        raise InvalidInput(Problem(name, "report not found"))
    data = read_json(path, "report", MAX_REPORT_BYTES)
    if not isinstance(data, dict):
        raise InvalidInput(Problem(name, f"not a policycheck report: a JSON {type(data).__name__}, not an object"))
    try:
        Report.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = path_text(tuple(first["loc"]))
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
            redundant = (
                key == "compared_value" and rule["threshold"]["compare"] == other["threshold"]["compare"] == "estimate"
            )
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
    #: (path, sha256, inside the root folder) of every file confirmed unchanged.
    files: list[tuple[str, str, bool]] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    rerun: dict[str, Any] | None = None
    #: Why the check could not be re-run (a changed file no longer loads, say).
    problems: list[Problem] = field(default_factory=list)

    @property
    def identical(self) -> bool:
        return not self.differences and not self.problems


#: Where each list of hashed files sits in report.json.
HASHED_FILE_LISTS = ("policy_files", "manifest", "metadata", "data_files", "referenced_files")


def named_files(report: dict[str, Any]) -> list[dict[str, str]]:
    """Every file the report names with a hash: policies, manifest, data, ledgers and matrices.

    Each entry also carries ``at``, the JSON path of its hash in the report.
    """
    prov = report["provenance"]
    out: dict[str, dict[str, str]] = {}
    for key in HASHED_FILE_LISTS:
        entries = prov.get(key)
        single = key in ("manifest", "metadata")
        if single:
            entries = [entries] if entries else []
        for i, f in enumerate(entries or []):
            at = f"provenance.{key}.sha256" if single else f"provenance.{key}[{i}].sha256"
            out.setdefault(f["path"], {**f, "at": at})
    return list(out.values())


def _inside(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root.resolve())
        return True
    except (ValueError, OSError):
        return False


def rehash(
    report: dict[str, Any], root: Path, show_external: bool = False, root_given: bool = True
) -> tuple[list[tuple[str, str, bool]], list[Difference], list[Problem]]:
    """Hash every named file again: (confirmed, changed, missing or refused).

    A file outside ``root`` (links followed) is not read unless
    ``show_external``: a report from someone else must not make verify
    reveal what files elsewhere on this machine contain.
    """
    confirmed, changed, missing = [], [], []
    for f in named_files(report):
        path = _resolve(f["path"], root)
        inside = _inside(path, root)
        if not inside and not show_external:
            missing.append(Problem(f["path"], f"file named in the report is outside {display_path(root)}, {OUTSIDE}"))
            continue
        if not path.exists() and not path.is_symlink():
            missing.append(
                Problem(
                    f["path"],
                    "file named in the report is missing"
                    if root_given
                    else f"file named in the report is not in {display_path(root)}, the folder verify "
                    "reads (the report's own): give --root with the folder the check ran in",
                )
            )
            continue
        try:
            stat_input(path, "input")
            sha = sha256_file(path)
        except InvalidInput as exc:
            missing.extend(exc.problems)
            continue
        if sha == f["sha256"]:
            confirmed.append((f["path"], sha, inside))
        else:
            changed.append(Difference("file", f["path"], "sha256", f["sha256"], sha, at=f["at"]))
    return confirmed, changed, missing


def _without_commands(release: Release) -> Release:
    """The release with every synthesizer command removed, so nothing it names can run."""

    def strip(d):
        if d.synthesizer is None or d.synthesizer.command is None:
            return d
        return d.with_synthesizer(dataclasses.replace(d.synthesizer, command=None))

    return dataclasses.replace(release, synthetic=tuple(strip(d) for d in release.synthetic))


def rebuild_release(report: dict[str, Any], root: Path, manifest: Path | None = None) -> Release:
    """The release the report was made from: the auditor's manifest, the report's, or its files and column types."""
    release = report["release"]
    if manifest is not None:
        return load_manifest(Path(manifest))
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
    if not by_role.get("original"):
        raise InvalidInput(Problem(release["id"], "the report names no original data set"))
    synth_keys = {f.name for f in dataclasses.fields(SynthesizerInfo)}
    synthetic = [
        (
            _resolve(d["path"], root),
            d["name"],
            SynthesizerInfo(**{k: v for k, v in (d["synthesizer"] or {}).items() if k in synth_keys}),
        )
        for d in by_role.get("synthetic", [])
    ]
    holdout = by_role.get("holdout")
    return build_release(
        release["id"],
        _resolve(by_role["original"][0]["path"], root),
        synthetic,
        _resolve(holdout[0]["path"], root) if holdout else None,
        # roles (reports since column roles) name id, ignore and datetime columns too
        {
            c: ColumnDecl(type=t, format=release.get("formats", {}).get(c))
            for c, t in (release.get("roles") or release["columns"]).items()
        },
    )


def needs_command(params: Any, release: Release | None = None) -> bool:
    """Whether a rule re-runs the synthesizer command the release declares (the attack games).

    A release whose sets name a built-in synthesizer (``builtin:``) and no
    command runs only policycheck's own code, so such a rule is re-run.
    """
    if getattr(params, "synthesizer", None) != "release":
        return False
    if getattr(params, "test", "game") == "distance":  # dp_epsilon_excess_membership without the game
        return False
    if release is not None and not any(d.synthesizer is not None and d.synthesizer.command for d in release.synthetic):
        return not any(d.synthesizer is not None and d.synthesizer.params.get("builtin") for d in release.synthetic)
    return True


def _report_date(report: dict[str, Any]) -> dt.date:
    try:
        return dt.datetime.fromisoformat(report["generated_at"]).date()
    except (TypeError, ValueError):
        raise InvalidInput(
            Problem("report.json", f"generated_at {report['generated_at']!r} is not an ISO date and time")
        ) from None


def rerun(
    report: dict[str, Any],
    root: Path,
    *,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = False,
    command: list[str] | None = None,
    manifest: Path | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Check the release again with the report's policy and seed: (new report, rules not re-run -> why).

    Waivers are judged as of the day the report was made, so a waiver that
    has expired since does not make the old report unverifiable. No command
    is run unless ``manifest`` (named by the auditor) declares it.
    """
    prov = report["provenance"]
    if not prov["policy_files"]:
        raise InvalidInput(Problem("report.json", "the report names no policy file"))
    if prov["seed"] < 0:
        raise InvalidInput(Problem("report.json", f"provenance.seed {prov['seed']} is negative"))
    release = rebuild_release(report, root, manifest)
    loaded = load_policy(_resolve(prov["policy_files"][0]["path"], root), release, today=_report_date(report))
    plan = compile_plan(loaded, release)
    skipped: dict[str, str] = {}
    if manifest is None:
        for e in plan.evaluations:
            if needs_command(e.params, release):
                skipped[e.rule.id] = (
                    "its synthesizer is the release's command, and verify runs no command a report "
                    "names; re-run it with --manifest MANIFEST, a release manifest you trust"
                )
    runnable = [e for e in plan.evaluations if e.rule.id not in skipped]
    used = {n for e in runnable for n in e.needs}
    to_run = dataclasses.replace(
        plan, evaluations=tuple(runnable), intermediates=tuple(s for s in plan.intermediates if s.need in used)
    )
    with make_executor(executor, workers) as pool:
        # NOTE: the run sees no command unless the auditor named the manifest;
        # the report still records the declared ones, for comparison.
        run = run_plan(
            to_run,
            release if manifest is not None else _without_commands(release),
            prov["seed"],
            pool,
            Progress(enabled=progress),
        )
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    new = build_report(to_run, release, run, executor=name, command=command or [], fail_on_warn=warnings_fail(report))
    return new, skipped


_MISSING = "(absent)"


def _same_leaf(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or isinstance(a, str) or isinstance(b, str):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return same_number(a, b)
    return a == b


def compare_fields(old: Any, new: Any, path: tuple[str | int, ...], out: list[Difference]) -> None:
    """Every leaf of ``old`` and ``new`` under ``path`` that differs, context fields aside."""
    if is_context(path):
        return
    if isinstance(old, dict) and isinstance(new, dict):
        for key in dict.fromkeys([*old, *new]):
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
    top_old = {k: v for k, v in old.items() if k not in ("rules", *aggregates)}
    top_new = {k: v for k, v in new.items() if k not in ("rules", *aggregates)}
    top_old["provenance"] = {k: v for k, v in old["provenance"].items() if k != "integrity"}
    top_new["provenance"] = {k: v for k, v in new["provenance"].items() if k != "integrity"}
    compare_fields(top_old, top_new, (), out)
    return out


def check_outputs(report_path: Path, report: dict[str, Any]) -> list[Difference]:
    """Each report file beside report.json must be what report.json renders to, byte for byte."""
    from policycheck.report.render import OUTPUTS, render_format

    out = []
    folder = Path(report_path).parent
    for fmt_name, file_name in OUTPUTS.items():
        path = folder / file_name
        if fmt_name == "json" or not (path.exists() or path.is_symlink()):
            continue
        try:
            expected = render_format(fmt_name, report)
        except Exception as exc:  # noqa: BLE001 - a tampered report may not render at all
            out.append(
                Difference("output", display_path(path), f"report.json no longer renders ({type(exc).__name__})")
            )
            continue
        wanted = expected.encode("utf-8")
        try:
            with open_regular(path, "report") as fh:  # a FIFO beside report.json is refused, not waited on
                same = fh.read(len(wanted) + 1) == wanted
        except InvalidInput as exc:
            out.append(Difference("output", display_path(path), exc.problems[0].message))
            continue
        if not same:
            out.append(
                Difference(
                    "output",
                    display_path(path),
                    "differs from what report.json renders to (edited, or from another run)",
                )
            )
    return out


def default_root(report_path: Path) -> Path:
    """The folder verify reads when no ``--root`` is given: the one holding report.json, never one the report names."""
    return Path(report_path).resolve().parent


def verify_report(
    path: Path,
    root: Path | None = None,
    *,
    executor: str = "local",
    workers: int | None = None,
    progress: bool = False,
    manifest: Path | None = None,
    show_external: bool = False,
) -> Verification:
    """Check every field of the report at ``path``, re-hash its files and re-run its check.

    ``root``: the folder the report's relative paths start from (default: the
    folder holding the report). No file outside it is read unless ``show_external``.
    """
    report = read_report(path)
    root_given = root is not None
    root = Path(root) if root is not None else default_root(path)
    result = Verification(report)
    if report["provenance"].get("integrity") is None:
        result.differences.append(Difference("sealed", "provenance.integrity", "missing"))
    else:
        result.differences += [Difference("sealed", p) for p in unsealed_fields(report)]
    result.differences += check_outputs(path, report)
    if manifest is not None:
        # The auditor named this manifest: it is read wherever it is (the files it names are not).
        manifest_sha = sha256_file(Path(manifest), "release manifest")
        if report["release"]["manifest_sha256"] != manifest_sha:
            result.differences.append(
                Difference(
                    "file",
                    display_path(manifest),
                    "sha256",
                    report["release"]["manifest_sha256"],
                    manifest_sha,
                    at="release.manifest_sha256",
                )
            )
    # The manifest the auditor names is read wherever it is; the files it names are not.
    confined = (
        reads_confined_to(root, OUTSIDE, also=[manifest] if manifest is not None else [])
        if not show_external
        else _unconfined()
    )
    with confined:
        confirmed, changed, missing = rehash(report, root, show_external, root_given)
        result.files = confirmed
        result.differences += changed
        if missing:
            result.problems = missing
            return result
        try:
            new, skipped = rerun(
                report,
                root,
                executor=executor,
                workers=workers,
                progress=progress,
                command=["policycheck", "verify", display_path(path)],
                manifest=manifest,
            )
        except InvalidInput as exc:
            # NOTE: keep the differences found so far: they usually say why.
            result.problems = exc.problems
            return result
    result.rerun = new
    result.differences += [Difference("not-rerun", rule_id, why) for rule_id, why in skipped.items()]
    # A file that changed shows once, as a file, not again as each field holding its hash.
    seen = {(d.old, d.new) for d in changed}
    result.differences += [
        d
        for d in compare_reports(report, new, skipped)
        if not (d.kind == "field" and isinstance(d.old, str) and isinstance(d.new, str) and (d.old, d.new) in seen)
    ]
    return result


def _unconfined():
    import contextlib

    return contextlib.nullcontext()


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
