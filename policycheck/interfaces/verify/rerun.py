"""Re-run a report's check: its release rebuilt, its policy as of the report's day, its seed, no command it names."""

from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path
from typing import Any

from policycheck.core.errors import InvalidInput, Problem
from policycheck.engine.commands import commands_to_run, hash_command_files, needs_command
from policycheck.engine.compiler import Plan, compile_plan
from policycheck.engine.progress import Progress
from policycheck.engine.runner import run_plan
from policycheck.execution.factory import make_executor
from policycheck.interfaces.check import check_findings
from policycheck.interfaces.verify.command_files import CHANGED, NO_MANIFEST, NOT_ASKED, NOT_RECORDED
from policycheck.interfaces.verify.files import resolve_path
from policycheck.policy.load import load_policy
from policycheck.release.load import build_release, load_manifest
from policycheck.release.manifest import ColumnDecl
from policycheck.release.model import Dataset, Release, SynthesizerInfo
from policycheck.report.build import build_report
from policycheck.report.junit import warnings_fail


def _without_commands(release: Release) -> Release:
    """The release with every synthesizer command removed, so nothing it names can run."""

    def strip(d: Dataset) -> Dataset:
        if d.synthesizer is None or d.synthesizer.command is None:
            return d
        return d.with_synthesizer(dataclasses.replace(d.synthesizer, command=None))

    return dataclasses.replace(release, synthetic=tuple(strip(d) for d in release.synthetic))


def rebuild_release(report: dict[str, Any], root: Path, manifest: Path | None = None) -> Release:
    """The release the report was made from: the auditor's manifest, the report's, or its files and column types."""
    rebuilt = _rebuild_release(report, root, manifest)
    if "role_sources" not in report["release"]:
        # A report from before role sources were recorded: nothing to compare them with.
        return dataclasses.replace(rebuilt, role_sources={})
    return rebuilt


def _rebuild_release(report: dict[str, Any], root: Path, manifest: Path | None = None) -> Release:
    release = report["release"]
    if manifest is not None:
        return load_manifest(Path(manifest))
    if release["manifest"]:
        return load_manifest(resolve_path(release["manifest"], root))
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
            resolve_path(d["path"], root),
            d["name"],
            SynthesizerInfo(**{k: v for k, v in (d["synthesizer"] or {}).items() if k in synth_keys}),
        )
        for d in by_role.get("synthetic", [])
    ]
    holdout, population = by_role.get("holdout"), by_role.get("population")
    rebuilt = build_release(
        release["id"],
        resolve_path(by_role["original"][0]["path"], root),
        synthetic,
        resolve_path(holdout[0]["path"], root) if holdout else None,
        # roles (reports since column roles) name id, ignore and datetime columns too
        {
            c: ColumnDecl(type=t, format=release.get("formats", {}).get(c))
            for c, t in (release.get("roles") or release["columns"]).items()
        },
        population=resolve_path(population[0]["path"], root) if population else None,
    )
    # The roles are re-declared from the report; where each came from is the report's to say.
    return dataclasses.replace(rebuilt, role_sources=dict(release.get("role_sources") or {}))


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
    run_synthesizer: bool = False,
    changed_command_files: list[str] | None = None,
) -> tuple[dict[str, Any], dict[str, str]]:
    """Check the release again with the report's policy and seed: (new report, rules not re-run -> why).

    Waivers are judged as of the day the report was made, so a waiver that
    has expired since does not make the old report unverifiable. No command
    is run unless ``manifest`` (named by the auditor) declares it, the auditor
    asked (``run_synthesizer``), the report records the files it names and
    none of them changed (``changed_command_files``: those that did).
    """
    prov = report["provenance"]
    if not prov["policy_files"]:
        raise InvalidInput(Problem("report.json", "the report names no policy file"))
    if prov["seed"] < 0:
        raise InvalidInput(Problem("report.json", f"provenance.seed {prov['seed']} is negative"))
    release = rebuild_release(report, root, manifest)
    loaded = load_policy(resolve_path(prov["policy_files"][0]["path"], root), release, today=_report_date(report))
    plan = compile_plan(loaded, release, resolution=False, estimates=False)
    refusal = _command_refusal(report, release, plan, manifest, run_synthesizer, changed_command_files or [])
    skipped: dict[str, str] = {}
    if refusal is not None:
        for e in plan.evaluations:
            if needs_command(e.params, release):
                skipped[e.rule.id] = refusal
    runnable = [e for e in plan.evaluations if e.rule.id not in skipped]
    used = {n for e in runnable for n in e.needs}
    to_run = dataclasses.replace(
        plan, evaluations=tuple(runnable), intermediates=tuple(s for s in plan.intermediates if s.need in used)
    )
    # The files of the command the check ran, hashed now (verify compared them before this): a report
    # from before they were recorded records none, and its re-run none either.
    synthesizer_files = hash_command_files(plan, release) if "synthesizer_files" in prov else None
    said = check_findings(loaded, plan, release)
    with make_executor(executor, workers) as pool:
        # NOTE: the run sees no command unless it may run one; the report
        # still records the declared ones, for comparison.
        run = run_plan(
            to_run,
            release if refusal is None else _without_commands(release),
            prov["seed"],
            pool,
            Progress(enabled=progress),
        )
        name = f"{executor} ({pool.workers} worker{'s' if pool.workers != 1 else ''})"
    new = build_report(
        to_run,
        dataclasses.replace(release, findings=[*release.findings, *said]) if said else release,
        run,
        executor=name,
        command=command or [],
        fail_on_warn=warnings_fail(report),
        synthesizer_files=synthesizer_files,
    )
    return new, skipped


def _command_refusal(
    report: dict[str, Any],
    release: Release,
    plan: Plan,
    manifest: Path | None,
    run_synthesizer: bool,
    changed: list[str],
) -> str | None:
    """Why the re-run may not run the release's synthesizer command, or None when it may."""
    if manifest is None:
        return NO_MANIFEST
    if not run_synthesizer:
        uses = commands_to_run(plan, release)
        return NOT_ASKED.format(command=uses[0].command if uses else "")
    if "synthesizer_files" not in report["provenance"]:
        return NOT_RECORDED
    if changed:
        return CHANGED.format(files=", ".join(changed))
    return None
