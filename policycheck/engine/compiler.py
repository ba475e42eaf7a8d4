"""Compile a validated policy into a plan of evaluators.

The plan lists, for every enabled rule, the metric evaluator with its
validated params, the shared intermediate results it needs and the attacker
knowledge it uses. Intermediates requested by several rules (the DCRs that
feed both the DCR-share and the MI-risk rules, say) appear once: the runner
computes each distinct one once. Nothing here names a metric.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from policycheck.core.errors import InvalidInput, Problem
from policycheck.core.plural import count_of
from policycheck.engine.resolution import Unresolved, resolution_of, unresolved_levels
from policycheck.metrics import registry
from policycheck.metrics.base import KNOWLEDGE_WORDS, Need
from policycheck.metrics.registry import MetricSpec
from policycheck.policy.load import LoadedPolicy
from policycheck.policy.model import Rule
from policycheck.release.model import ColumnType, Dataset, Release


@dataclass(frozen=True)
class IntermediateStep:
    need: Need
    description: str
    used_by: tuple[str, ...]
    #: Estimated CPU time and memory (a cost_model.StepEstimate), when a release is given
    #: and the intermediate has a cost model.
    estimate: Any = None


@dataclass(frozen=True)
class Evaluation:
    rule: Rule
    spec: MetricSpec
    params: BaseModel
    needs: tuple[Need, ...]
    #: The metric's no-leak value and interval width at the release's sizes (a metrics.base.Resolution),
    #: when a release is given and the metric declares a resolution hook.
    resolution: Any = None


@dataclass(frozen=True)
class Plan:
    loaded: LoadedPolicy
    release: Release | None
    intermediates: tuple[IntermediateStep, ...]
    evaluations: tuple[Evaluation, ...]
    #: Workers the estimates divide the CPU time over.
    workers: int = 1
    #: Levels the release's sample cannot resolve, with their place in the policy (resolution.py).
    unresolved: tuple[tuple[Unresolved, Problem], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "policy": self.loaded.policy.metadata.id,
            "attacker": self.loaded.policy.attacker.model,
            "release": self.release.id if self.release else None,
            "columns": self.columns(),
            "intermediates": [
                {
                    "need": s.need.label,
                    "description": s.description,
                    "used_by": list(s.used_by),
                    **({"estimate": s.estimate.to_dict()} if s.estimate is not None else {}),
                }
                for s in self.intermediates
            ],
            "evaluations": [
                {
                    "rule": e.rule.id,
                    "metric": e.spec.name,
                    "family": e.spec.family,
                    "severity": e.rule.severity,
                    "params": e.params.model_dump(mode="json"),
                    "needs": [n.label for n in e.needs],
                    "knowledge": sorted(k.value for k in e.spec.knowledge),
                    "inputs": sorted(e.spec.inputs),
                    **({"resolution": _resolution_dict(e.resolution)} if e.resolution is not None else {}),
                    "unresolved": [
                        {"level": u.which, "value": u.level, "records_to_resolve": u.needed, "message": str(where)}
                        for u, where in self.unresolved
                        if u.rule == e.rule.id
                    ],
                }
                for e in self.evaluations
            ],
        }

    def columns(self) -> list[dict[str, Any]]:
        """Every column of the release: its role, where that came from, and what the policy's attacker knows it as."""
        if self.release is None:
            return []
        a = self.loaded.policy.attacker
        return [
            {
                "name": name,
                "role": role,
                "source": self.release.role_sources.get(name),
                "attacker": "quasi-identifier"
                if name in a.quasi_identifiers
                else "secret"
                if name in a.secrets
                else None,
            }
            for name, role in self.release.roles.items()
        ]

    def describe(self) -> str:
        """The plan in plain text, as ``policycheck plan`` prints it."""
        from policycheck.metrics.base import value_text

        p = self.loaded.policy
        release = (
            f"{self.release.id} ({count_of(len(self.release.synthetic), 'synthetic set')})"
            if self.release
            else "(none given: one synthetic set assumed)"
        )
        lines = [
            f"policy {p.metadata.id} v{p.metadata.version}: {count_of(len(self.evaluations), 'rule')}, "
            f"attacker model {p.attacker.model}",
            f"release: {release}",
        ]
        if self.release is not None:
            columns = self.columns()
            width = max(len(c["name"]) for c in columns)
            lines += ["", "columns (role, and where it came from):"]
            for c in columns:
                seen = f"  [{c['attacker']}]" if c["attacker"] else ""
                lines.append(f"  {c['name']:<{width}}  {c['role']:<11}  {c['source'] or 'declared'}{seen}")
        lines += ["", "shared intermediate results (each computed once):"]
        if not self.intermediates:
            lines.append("  (none)")
        for step in self.intermediates:
            lines.append(f"  {step.need.label}: {step.description}")
            lines.append(f"      used by: {', '.join(step.used_by)}")
            if self.release is not None:
                said = step.estimate.describe(self.workers) if step.estimate else "none (no cost model)"
                lines.append(f"      estimate: {said}")
        lines += ["", "evaluators:"]
        for e in self.evaluations:
            lines.append(f"  {e.rule.id} [{e.rule.severity}]: {e.spec.name} ({e.spec.family}) - {e.spec.summary}")
            params = e.params.model_dump(mode="json", exclude_defaults=False)
            if params:
                lines.append(f"      params: {', '.join(f'{k}={value_text(v)}' for k, v in params.items())}")
            lines.append(f"      needs: {', '.join(n.label for n in e.needs) or '(nothing shared)'}")
            knowledge = "; ".join(KNOWLEDGE_WORDS[k] for k in sorted(e.spec.knowledge, key=lambda k: k.value))
            lines.append(
                f"      attacker knowledge used: {knowledge or '(none: a property of the data, not an attack)'}"
            )
            optional = [f"{i} (if the release has it)" for i in sorted(e.spec.optional_inputs)]
            lines.append(f"      data read: {', '.join([*sorted(e.spec.inputs), *optional])}")
            if e.resolution is not None:
                r = e.resolution
                lines.append(
                    f"      resolution: no leak {r.no_leak:.4g}, interval about ±{r.half_width:.3g} at "
                    f"{r.records:,} {r.unit} ({round(r.confidence * 100, 2):g}%)"
                )
            for u, where in self.unresolved:
                if u.rule == e.rule.id:
                    lines.append(f"      {where}")
        return "\n".join(lines)


def compile_plan(
    loaded: LoadedPolicy,
    release: Release | None = None,
    workers: int = 1,
    resolution: bool = True,
    estimates: bool = True,
) -> Plan:
    """Turn a validated policy into a plan for ``release`` (or a one-set stand-in).

    With a release, each step with a cost model carries its estimated time
    and memory (:mod:`policycheck.methods.cost_model`), its time also on ``workers``,
    and each evaluation its metric's resolution at the release's sizes and the
    levels the sample cannot resolve (:mod:`policycheck.engine.resolution`).
    A check, which measures instead, asks for neither (``resolution`` and
    ``estimates`` False): an estimate may cost a timed round of a synthesizer
    and the set-up before it (the membership game's isolation scores: about
    50 s at 60,000 population records), which the check would then pay twice.
    """
    resolution = resolution and release is not None
    shape = release if release is not None else _stand_in(loaded)
    known = registry.intermediates()
    evaluations: list[Evaluation] = []
    users: dict[Need, list[str]] = {}
    problems: list[Problem] = []
    for rule in loaded.rules:
        spec = registry.get_metric(rule.metric)
        params = loaded.params[rule.id]
        if release is not None and "holdout" in spec.inputs and release.holdout is None:
            file, line, col = loaded.rule_origin(rule.id)
            problems.append(
                Problem(
                    file,
                    f"rule {rule.id!r}: metric {spec.name!r} needs a holdout set and the release has none",
                    line,
                    col,
                )
            )
            continue
        needs = tuple(spec.needs(params, shape))
        for need in needs:
            if need.intermediate not in known:
                raise RuntimeError(f"metric {spec.name!r} needs unregistered intermediate {need.intermediate!r}")
            users.setdefault(need, []).append(rule.id)
        resolved = resolution_of(rule, loaded, release) if resolution else None  # type: ignore[arg-type]
        evaluations.append(Evaluation(rule, spec, params, needs, resolved))
    if problems:
        raise InvalidInput(problems)
    steps = tuple(
        IntermediateStep(
            n,
            known[n.intermediate].description,
            tuple(ids),
            _estimate(known[n.intermediate], n, release) if estimates else None,
        )
        for n, ids in users.items()
    )
    unresolved = tuple(unresolved_levels(loaded, release)) if resolution else ()  # type: ignore[arg-type]
    return Plan(loaded, release, steps, tuple(evaluations), workers, unresolved)


def _resolution_dict(r: Any) -> dict[str, Any]:
    return {
        "no_leak": r.no_leak,
        "half_width": r.half_width,
        "records": r.records,
        "unit": r.unit,
        "confidence": r.confidence,
        "basis": r.basis,
    }


def _estimate(spec: Any, need: Need, release: Release | None) -> Any:
    if release is None or spec.estimate is None:
        return None
    return spec.estimate(release, **need.kwargs)


def _stand_in(loaded: LoadedPolicy) -> Release:
    """A release of one synthetic set with the policy's columns, for `plan` without data."""
    a = loaded.policy.attacker
    cols = list(dict.fromkeys([*a.quasi_identifiers, *a.secrets]))
    frame = _NoRows(cols)
    types = dict.fromkeys(cols, ColumnType.CATEGORICAL)

    def ds(role: str, name: str) -> Dataset:
        return Dataset(role, name, frame)

    return Release(
        "(no release)", ds("original", "original"), (ds("synthetic", "synthetic[0]"),), ds("holdout", "holdout"), types
    )


class _NoRows:
    """The stand-in's data: column names and no rows. Needs read only the shape of a
    release, and `plan` without data then starts without importing pandas."""

    def __init__(self, columns: list[str]) -> None:
        self.columns = list(columns)

    def __len__(self) -> int:
        return 0
