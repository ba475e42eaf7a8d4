"""Run a compiled plan: compute each shared intermediate once, then every
evaluator, then turn each measurement into a verdict.

Verdicts are settled in three steps: each rule's threshold (pass, warn,
fail, inconclusive); then consistency across rules, where a rule whose value
relies on a declared claim that another rule refuted in the same run fails
(whatever the metrics); then waivers.

An exception inside an evaluator becomes that rule's ``error`` verdict (exit
code 3), never a crash and never a pass.
"""

from __future__ import annotations

import datetime as dt
import time
import traceback
from dataclasses import dataclass, field
from typing import Any

from policycheck.engine.compiler import Evaluation, Plan
from policycheck.engine.progress import Progress, step_labels
from policycheck.engine.verdicts import WAIVABLE, judge_result
from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.metrics import registry
from policycheck.metrics.base import EvaluationContext, EvaluationError, MetricResult, Need
from policycheck.policy.model import Waiver
from policycheck.release.model import Release


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
    #: What an inconclusive verdict does to the release (the rule's or the policy's on_inconclusive).
    on_inconclusive: str = "warn"
    #: Plain words for a verdict its name does not explain (inconclusive, a refuted claim).
    reason: str | None = None
    #: Records that would settle the level this sample leaves unsettled, when known.
    records_to_settle: int | None = None
    #: The decision rule that decided (interval, estimate, upper, lower, refuted_claim) and why, in words.
    decided_on: str | None = None
    decision: str | None = None
    #: The level this sample leaves unsettled: "fail" (inconclusive) or "warn" (a warn not shown beyond it).
    unsettled: str | None = None


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
    started = dt.datetime.now(dt.UTC)
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
    labels = step_labels(step.need for step in plan.intermediates)
    for group in _groups([step.need for step in plan.intermediates], ctx.executor.workers > 1):
        done += len(group)
        progress.step(done, total, "computing " + " + ".join(labels[need] for need in group))
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
        outcome = _evaluate(ctx, evaluation, values, failed)
        outcome.on_inconclusive = evaluation.rule.on_inconclusive or plan.loaded.policy.on_inconclusive
        outcomes.append(outcome)
    progress.done()
    fail_on_refuted_claims(outcomes)
    for outcome in outcomes:
        _apply_waiver(outcome, waivers.get(outcome.evaluation.rule.id))
    used = {o.evaluation.rule.id for o in outcomes if o.waiver is not None}
    unused = sorted(set(waivers) - used)
    return RunResult(outcomes, seed, started, dt.datetime.now(dt.UTC), timings, unused)


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
) -> RuleOutcome:
    # NOTE: Needs that failed for one cause (the original records' attack and
    # its holdout control, say) share one message, so it is said once.
    causes: dict[str, list[str]] = {}
    for need in evaluation.needs:
        if need in failed:
            causes.setdefault(failed[need], []).append(need.label)
    if causes:
        broken = [f"{' and '.join(labels)}: {cause}" for cause, labels in causes.items()]
        return RuleOutcome(evaluation, "error", error="could not compute " + "; ".join(broken))
    t0 = time.perf_counter()
    try:
        result = evaluation.spec.evaluate(ctx, evaluation.params, {n: values[n] for n in evaluation.needs})
        judged = judge_result(evaluation.rule.threshold, result)
    except Exception as exc:  # noqa: BLE001 - an evaluator error is a verdict, exit 3
        return RuleOutcome(evaluation, "error", error=_describe(exc), seconds=time.perf_counter() - t0)
    return RuleOutcome(
        evaluation,
        judged.verdict,
        result,
        judged.compared,
        judged.verdict,
        seconds=time.perf_counter() - t0,
        reason=judged.reason,
        records_to_settle=judged.records_to_settle,
        decided_on=judged.decided_on,
        decision=judged.decision,
        unsettled=judged.unsettled,
    )


def fail_on_refuted_claims(outcomes: list[RuleOutcome]) -> None:
    """A rule relying on a claim another rule refuted in this run fails.

    A declared claim (a synthetic set's epsilon, say) that one measurement
    refutes cannot count as true in another rule's value: a privacy budget
    that sums a refuted epsilon is unaccounted, whatever its total.
    """
    refuted_by: dict[str, str] = {}
    for outcome in outcomes:
        if outcome.result is not None:
            for claim in outcome.result.refutes:
                refuted_by.setdefault(claim, outcome.evaluation.rule.id)
    for outcome in outcomes:
        if outcome.result is None or outcome.verdict == "error":
            continue
        rule_id = outcome.evaluation.rule.id
        hits = [
            (claim, refuted_by[claim])
            for claim in outcome.result.relies_on
            if claim in refuted_by and refuted_by[claim] != rule_id
        ]
        if not hits:
            continue
        words = "; ".join(f"{_claim_words(claim)}, which rule {by!r} refuted" for claim, by in hits)
        outcome.verdict = outcome.raw_verdict = "fail"
        outcome.records_to_settle = outcome.unsettled = None
        outcome.reason = (
            f"Fails because its value relies on {words} in this run: a value built on a refuted claim cannot "
            f"pass (a budget that counts it leaves the release unaccounted)."
        )
        outcome.decided_on = "refuted_claim"
        outcome.decision = "Decided by a claim another rule refuted, whatever the rule's own numbers show."


def _claim_words(claim: str) -> str:
    """``synthetic[0]:epsilon`` as ``the epsilon claim of synthetic[0]``."""
    where, _, what = claim.rpartition(":")
    return f"the {what} claim of {where}" if where else f"the claim {claim}"


def _apply_waiver(outcome: RuleOutcome, waiver: Waiver | None) -> None:
    if waiver is not None and outcome.verdict in WAIVABLE:
        outcome.verdict = "waived"
        outcome.waiver = waiver


def _describe(exc: Exception) -> str:
    if isinstance(exc, (EvaluationError, ValueError)):
        return str(exc)
    # NOTE: an unexpected exception is a bug in policycheck; keep the last
    # frame so the report says where, without dumping a traceback on users.
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})" if frame else ""
    return f"internal error {type(exc).__name__}: {exc}{where}"
