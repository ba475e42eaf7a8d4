"""Run a compiled plan: compute each shared intermediate once, then every
evaluator, then turn each measurement into a verdict (waivers applied).

An exception inside an evaluator becomes that rule's ``error`` verdict (exit
code 3), never a crash and never a pass.
"""

from __future__ import annotations

import datetime as dt
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from policycheck.compiler import Evaluation, Plan
from policycheck.executor import Executor, SerialExecutor
from policycheck.metrics import registry
from policycheck.metrics.base import EvaluationContext, EvaluationError, MetricResult, Need
from policycheck.policy.model import Waiver
from policycheck.progress import Progress
from policycheck.release.model import Release
from policycheck.verdicts import compared_value, judge


@dataclass
class RuleOutcome:
    evaluation: Evaluation
    verdict: str
    result: MetricResult | None = None
    measured: float | None = None  # the value compared with the threshold
    raw_verdict: str | None = None  # before a waiver
    waiver: Waiver | None = None
    error: str | None = None
    seconds: float = 0.0


@dataclass
class RunResult:
    outcomes: list[RuleOutcome]
    seed: int
    started: dt.datetime
    finished: dt.datetime
    intermediate_seconds: dict[str, float] = field(default_factory=dict)
    unused_waivers: list[str] = field(default_factory=list)


def run_plan(
    plan: Plan,
    release: Release,
    seed: int,
    executor: Executor | None = None,
    progress: Progress | None = None,
) -> RunResult:
    """Evaluate every rule of ``plan`` on ``release``."""
    started = dt.datetime.now(dt.timezone.utc)
    progress = progress or Progress(enabled=False)
    ctx = EvaluationContext(
        release=release,
        attacker=plan.loaded.attacker,
        seed=seed,
        executor=executor or SerialExecutor(),
        base_dir=plan.loaded.path.parent,
        progress=progress.tick,
    )
    total = len(plan.intermediates) + len(plan.evaluations)
    values: dict[Need, Any] = {}
    failed: dict[Need, str] = {}
    timings: dict[str, float] = {}
    done = 0
    for group in _groups([step.need for step in plan.intermediates], ctx.executor.workers > 1):
        done += len(group)
        progress.step(done, total, "computing " + " + ".join(need.label for need in group))
        t0 = time.perf_counter()
        try:
            if len(group) == 1:
                results = [registry.compute_intermediate(ctx, group[0])]
            else:
                results = registry.compute_intermediates(ctx, group)
        except Exception as exc:  # noqa: BLE001 - reported per rule, exit 3
            results = [exc] * len(group)
        for need, result in zip(group, results, strict=True):
            if isinstance(result, Exception):
                failed[need] = _describe(result)
            else:
                values[need] = result
            # NOTE: a batch's Needs share one wall time.
            timings[need.label] = time.perf_counter() - t0

    waivers = {w.rule: w for w in plan.loaded.policy.waivers}
    outcomes = []
    for j, evaluation in enumerate(plan.evaluations, start=len(plan.intermediates) + 1):
        progress.step(j, total, f"evaluating {evaluation.rule.id} ({evaluation.spec.name})")
        outcomes.append(_evaluate(ctx, evaluation, values, failed, waivers.get(evaluation.rule.id)))
    progress.done()
    used = {o.evaluation.rule.id for o in outcomes if o.waiver is not None}
    unused = sorted(set(waivers) - used)
    return RunResult(outcomes, seed, started, dt.datetime.now(dt.timezone.utc), timings, unused)


def _groups(needs: list[Need], parallel: bool) -> list[list[Need]]:
    """The plan's Needs in order, those of one batching intermediate together.

    Batching only pays with more than one worker; serially each Need stays
    on its own (and keeps its own progress step).
    """
    groups: list[list[Need]] = []
    batched: dict[str, list[Need]] = {}
    for need in needs:
        if parallel and registry.can_batch(need):
            if need.intermediate not in batched:
                batched[need.intermediate] = []
                groups.append(batched[need.intermediate])
            batched[need.intermediate].append(need)
        else:
            groups.append([need])
    return groups


def _evaluate(
    ctx: EvaluationContext,
    evaluation: Evaluation,
    values: dict[Need, Any],
    failed: dict[Need, str],
    waiver: Waiver | None,
) -> RuleOutcome:
    broken = [f"{n.label}: {failed[n]}" for n in evaluation.needs if n in failed]
    if broken:
        return RuleOutcome(evaluation, "error", error="could not compute " + "; ".join(broken))
    t0 = time.perf_counter()
    try:
        result = evaluation.spec.evaluate(ctx, evaluation.params, {n: values[n] for n in evaluation.needs})
        measured = compared_value(evaluation.rule.threshold, result)
        verdict = judge(evaluation.rule.threshold, measured)
    except Exception as exc:  # noqa: BLE001 - an evaluator error is a verdict, exit 3
        return RuleOutcome(evaluation, "error", error=_describe(exc), seconds=time.perf_counter() - t0)
    outcome = RuleOutcome(evaluation, verdict, result, measured, verdict, seconds=time.perf_counter() - t0)
    if waiver is not None and verdict in ("fail", "warn"):
        outcome.verdict = "waived"
        outcome.waiver = waiver
    return outcome


def _describe(exc: Exception) -> str:
    if isinstance(exc, (EvaluationError, ValueError)):
        return str(exc)
    # NOTE: an unexpected exception is a bug in policycheck; keep the last
    # frame so the report says where, without dumping a traceback on users.
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})" if frame else ""
    return f"internal error {type(exc).__name__}: {exc}{where}"
