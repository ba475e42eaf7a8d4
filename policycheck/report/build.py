"""Assemble report.json from a plan and its run: verdicts, evidence, provenance."""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import numpy as np

from policycheck.core.errors import display_path
from policycheck.core.version import __version__, source_sha256
from policycheck.engine.compiler import Plan
from policycheck.engine.outcome import RuleOutcome, RunResult
from policycheck.engine.verdicts import exit_code, release_verdict
from policycheck.metrics.base import KNOWLEDGE_WORDS
from policycheck.metrics.registry import DATA_SETS, MetricSpec, convention_effects
from policycheck.policy.load import LoadedPolicy
from policycheck.policy.model import Waiver
from policycheck.release.model import Release, SynthesizerInfo
from policycheck.release.people import people_counted
from policycheck.report.integrity import new_run_id, seal
from policycheck.report.model import SCHEMA_VERSION, Report
from policycheck.report.summary import summarize_rules

#: Every library that computes a number in a report (and those that read and render it), by distribution name.
LIBRARIES = (
    "numpy",
    "pandas",
    "scipy",
    "highspy",
    "numba",
    "scikit-learn",
    "dp-accounting",
    "pyarrow",
    "pydantic",
    "jinja2",
    "ruamel.yaml",
)


def build_report(
    plan: Plan,
    release: Release,
    run: RunResult,
    *,
    executor: str,
    command: list[str],
    fail_on_warn: bool = False,
    run_id: str | None = None,
    synthesizer_files: list[dict[str, str]] | None = None,
    output_folder: str | None = None,
) -> dict[str, Any]:
    """The report as a plain dict, validated against the published schema, sealed (see report/integrity.py).

    ``synthesizer_files``: the files the synthesizer command the run ran names, hashed
    (:func:`policycheck.engine.commands.hash_command_files`); None when it ran none.
    ``output_folder``: where the reports are written (as the user would type it), None when not known.
    """
    loaded = plan.loaded
    policy = loaded.policy
    present = frozenset(d.role for d in release.datasets())
    rules = [_rule(o, loaded, present) for o in run.outcomes]
    verdict = release_verdict(rules)
    person_key, people = people_counted(release)
    report = {
        "schema_version": SCHEMA_VERSION,
        "verdict": verdict.value,
        "exit_code": exit_code(verdict, fail_on_warn),
        "generated_at": run.finished.isoformat(timespec="seconds"),
        "policy": {
            "id": policy.metadata.id,
            "title": policy.metadata.title,
            "version": policy.metadata.version,
            "owner": policy.metadata.owner,
            "description": policy.metadata.description,
            "path": display_path(loaded.path),
            "attacker_model": policy.attacker.model,
            "attacker_knowledge": [
                KNOWLEDGE_WORDS[k] for k in sorted(loaded.attacker.knowledge, key=lambda k: k.value)
            ],
            "quasi_identifiers": list(policy.attacker.quasi_identifiers),
            "secrets": list(policy.attacker.secrets),
        },
        "release": {
            "id": release.id,
            "manifest": display_path(release.manifest_path) if release.manifest_path else None,
            "manifest_sha256": release.manifest_sha256,
            "columns": {c: t.value for c, t in release.column_types.items()},
            "roles": dict(release.roles),
            # NOTE: absent when unknown, so a report from before it was recorded re-runs identical.
            **({"role_sources": dict(release.role_sources)} if release.role_sources else {}),
            "formats": dict(release.formats),
            "findings": list(release.findings),
            # NOTE: absent where no id column names people, so a report from before it was recorded re-runs identical.
            **({"person_key": person_key} if person_key else {}),
            "datasets": [
                {
                    "role": d.role,
                    "name": d.name,
                    "path": display_path(d.path) if d.path else None,
                    "sha256": d.sha256,
                    "rows": d.n_rows,
                    **({"people": people[d.role]} if d.role in people else {}),
                    "synthesizer": _synth(d.synthesizer) if d.synthesizer else None,
                }
                for d in release.datasets()
            ],
        },
        "summary": summarize_rules(rules, list(run.unused_waivers)).to_json(),
        "rules": rules,
        "waivers": [_waiver(w) for w in policy.waivers],
        "methods": methods_of([o.evaluation.spec for o in run.outcomes]),
        "provenance": {
            "tool": "policycheck",
            "tool_version": __version__,
            "tool_source_sha256": source_sha256(),
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "libraries": {name: _version(name) for name in LIBRARIES},
            "policy_files": [{"path": display_path(p), "sha256": sha} for p, sha in loaded.source.files],
            "data_files": [
                {"path": display_path(d.path), "sha256": d.sha256} for d in release.datasets() if d.path and d.sha256
            ],
            "manifest": (
                {"path": display_path(release.manifest_path), "sha256": release.manifest_sha256}
                if release.manifest_path and release.manifest_sha256
                else None
            ),
            "metadata": (
                {"path": display_path(release.metadata_path), "sha256": release.metadata_sha256}
                if release.metadata_path and release.metadata_sha256
                else None
            ),
            "seed": run.seed,
            "confidence": policy.confidence,
            "effective_policy": jsonable(policy.model_dump(mode="json")),
            "executor": executor,
            "command": command,
            "fail_on_warn": fail_on_warn,
            "working_directory": str(Path.cwd()),
            "output_folder": output_folder,
            "git_revision": loaded.git_revision,
            "started_at": run.started.isoformat(timespec="seconds"),
            "finished_at": run.finished.isoformat(timespec="seconds"),
            "intermediate_seconds": {k: round(v, 3) for k, v in run.intermediate_seconds.items()},
            "run_id": run_id or new_run_id(),
            "referenced_files": [{"path": display_path(p), "sha256": sha} for p, sha in loaded.referenced_files],
            # NOTE: absent when no command ran, so verify can tell a report from before they were recorded.
            **({"synthesizer_files": synthesizer_files} if synthesizer_files is not None else {}),
        },
    }
    report = seal(jsonable(report))
    Report.model_validate(report)  # the published schema is a promise: check it
    return report


def _rule(outcome: RuleOutcome, loaded: LoadedPolicy, present: frozenset[str]) -> dict[str, Any]:
    e = outcome.evaluation
    r = outcome.result
    file, line, col = loaded.rule_origin(e.rule.id)
    knowledge = sorted(e.spec.knowledge, key=lambda k: k.value)
    return {
        "id": e.rule.id,
        "metric": e.spec.name,
        "family": e.spec.family,
        "release_level_membership": e.spec.release_level_membership,
        "severity": e.rule.severity,
        "verdict": outcome.verdict.value,
        "verdict_before_waiver": outcome.raw_verdict.value if outcome.waiver else None,
        "verdict_reason": _reason(outcome),
        "on_inconclusive": outcome.on_inconclusive,
        "records_to_settle": outcome.records_to_settle,
        "decided_on": outcome.decided_on,
        "decision": outcome.decision,
        "unsettled": outcome.unsettled,
        "value": r.value if r else None,
        "compared_value": outcome.measured,
        "raw": r.raw if r else None,
        "baseline": r.baseline if r else None,
        "baseline_label": r.baseline_label if r else None,
        "sample_size": r.sample_size if r else None,
        "sample_unit": r.sample_unit if r else "records",
        "refutes": [str(claim) for claim in r.refutes] if r else [],
        "relies_on": [str(claim) for claim in r.relies_on] if r else [],
        "threshold": e.rule.threshold.model_dump(),
        "value_range": list(e.spec.value_range) if any(v is not None for v in e.spec.value_range) else None,
        "interval": list(r.interval) if r and r.interval is not None else None,
        # NOTE: absent unless the metric gives it, so every other rule (and a re-run of a report written before
        # it was recorded) reads as before.
        **({"interval_of": r.interval_of} if r and r.interval_of and r.interval is not None else {}),
        "confidence": r.confidence if r else None,
        "summary": e.spec.summary,
        "meaning": e.spec.meaning,
        "remedy": e.spec.remedy,
        "rationale": e.rule.rationale,
        "params": e.params.model_dump(mode="json"),
        "knowledge": [k.value for k in knowledge],
        "knowledge_words": [KNOWLEDGE_WORDS[k] for k in knowledge],
        # what the rule reads: its inputs, and an optional data set only when the release has it
        "inputs": sorted(e.spec.inputs | {i for i in e.spec.optional_inputs if i not in DATA_SETS or i in present}),
        "needs": [n.label for n in e.needs],
        "policy_location": {"file": file, "line": line, "col": col},
        "details": r.details.to_report() if r else {},
        "detail_fields": type(r.details).field_labels() if r else {},
        "charts": [dict(c) for c in r.charts] if r else [],
        "notes": list(r.notes) if r else [],
        "waiver": _waiver(outcome.waiver) if outcome.waiver else None,
        "error": outcome.error,
        "seconds": round(outcome.seconds, 3),
    }


def methods_of(specs: list[MetricSpec]) -> list[dict[str, Any]]:
    """The methods section: each metric used (in rule order, once) with its registered Method.

    Each convention carries its effect measured on the demo's releases
    (policycheck/metrics/convention_effects.json), so the report states
    how much the choice moves the number, not only that it was made.
    """
    effects = convention_effects()
    out, seen = [], set()
    for spec in specs:
        if spec.name in seen or spec.method is None:
            continue
        seen.add(spec.name)
        m = spec.method
        out.append(
            {
                "metric": spec.name,
                "family": spec.family,
                "definition": m.definition,
                "source": m.source,
                "conventions": [
                    {
                        "topic": c.topic,
                        "peer": c.peer,
                        "theirs": c.theirs,
                        "ours": c.ours,
                        "effect": _effect(effects.get(c.effect)) if c.effect else None,
                    }
                    for c in m.conventions
                ],
            }
        )
    return out


def _effect(measured: dict[str, Any] | None) -> dict[str, Any] | None:
    if measured is None:
        return None
    return {
        "measure": measured["measure"],
        "demo": [{"release": name, "ours": v["ours"], "theirs": v["theirs"]} for name, v in measured["demo"].items()],
    }


def _reason(outcome: RuleOutcome) -> str | None:
    """Plain words for the verdict: why it is inconclusive or failed on a refuted claim, or what a pass means."""
    if outcome.reason:
        return outcome.reason
    if outcome.raw_verdict == "pass" and outcome.evaluation.spec.pass_means:
        return outcome.evaluation.spec.pass_means
    return None


def _waiver(w: Waiver) -> dict[str, Any]:
    return {
        "rule": w.rule,
        "reason": w.reason,
        "approved_by": w.approved_by,
        "expires": w.expires.isoformat(),
        "ticket": w.ticket,
    }


def _synth(info: SynthesizerInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "epsilon": info.epsilon,
        "delta": info.delta,
        "params": dict(info.params),
        "command": info.command,
        "command_sha256": hashlib.sha256(info.command.encode("utf-8")).hexdigest() if info.command else None,
    }


def _version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def jsonable(obj: Any) -> Any:
    """Plain JSON types: numpy scalars and arrays converted, NaN/inf as None."""
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return jsonable(obj.tolist())
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        f = float(obj)
        return f if math.isfinite(f) else None
    if isinstance(obj, (dt.date, dt.datetime)):
        return obj.isoformat()
    if isinstance(obj, Path):
        return str(obj)
    if obj is None or isinstance(obj, str):
        return obj
    return str(obj)
