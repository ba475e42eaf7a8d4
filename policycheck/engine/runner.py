"""Run a compiled plan: compute each shared intermediate once, then every
evaluator, then turn each measurement into a verdict.

Verdicts are settled in three steps, each a function from outcomes to new
outcomes: each rule's threshold (pass, warn, fail, inconclusive,
:mod:`policycheck.engine.verdicts`); then consistency across rules, where a
rule whose value relies on a declared claim that another rule refuted in the
same run fails, whatever the metrics (:mod:`policycheck.engine.claims`);
then waivers (:mod:`policycheck.engine.waivers`).

An exception inside an evaluator becomes that rule's ``error`` verdict (exit
code 3), never a crash and never a pass. Only an
:class:`~policycheck.core.errors.EvaluationError`'s message is written for
users; any other exception is a bug, reported with where it was raised.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
import traceback
from typing import Any

from policycheck.core.errors import EvaluationError
from policycheck.core.threads import in_turn
from policycheck.engine.claims import fail_on_refuted_claims
from policycheck.engine.compiler import Evaluation, Plan
from policycheck.engine.outcome import RuleOutcome, RunResult
from policycheck.engine.progress import Progress, Step, step_labels
from policycheck.engine.verdicts import judge_result
from policycheck.engine.waivers import apply_waivers, unused_waivers
from policycheck.execution.executor import Executor, SerialExecutor
from policycheck.execution.one_map_at_a_time import OneMapAtATime
from policycheck.metrics import registry
from policycheck.metrics.base import EvaluationContext, Need
from policycheck.release.model import Release

__all__ = ["RuleOutcome", "RunResult", "run_plan"]


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
    values: dict[Need, Any] = {}
    failed: dict[Need, str] = {}
    timings: dict[str, float] = {}
    labels = step_labels(step.need for step in plan.intermediates)
    groups = _groups([step.need for step in plan.intermediates], ctx.executor.workers > 1)
    total = len(groups) + len(plan.evaluations)  # one numbered step per group, so the count has no gaps
    try:
        for i, group in enumerate(groups, start=1):
            progress.step(i, total, "computing " + " + ".join(labels[need] for need in group))
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

        steps = list(enumerate(plan.evaluations, start=len(groups) + 1))
        outcomes = _evaluate_all(ctx, plan, steps, total, values, failed, progress)
    finally:
        progress.done()  # a live bar left running would swallow the newline of the error that follows
    waivers = plan.loaded.policy.waivers
    settled = apply_waivers(fail_on_refuted_claims(outcomes), waivers)
    return RunResult(settled, seed, started, dt.datetime.now(dt.UTC), timings, unused_waivers(settled, waivers))


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


def _evaluate_all(
    ctx: EvaluationContext,
    plan: Plan,
    steps: list[tuple[int, Evaluation]],
    total: int,
    values: dict[Need, Any],
    failed: dict[Need, str],
    progress: Progress,
) -> list[RuleOutcome]:
    """Each rule's outcome, in the plan's order; with several workers, rules are evaluated side by side.

    After the intermediates, what is left is each rule's own work, often in this process alone (the
    DCR share's counts beside the MI bootstrap): with one thread per worker, a rule waiting on the
    GIL or the pool leaves its core to another. Rules begin in the plan's order and never share a
    map: the executor runs one at a time (:class:`OneMapAtATime`), each with every worker. Every
    random choice comes from the seed and the rule's own key, so the numbers are the same in any order.
    """

    def evaluate(evaluation: Evaluation, step: Step, executor: Executor) -> RuleOutcome:
        on_inconclusive = evaluation.rule.on_inconclusive or plan.loaded.policy.on_inconclusive
        own = dataclasses.replace(ctx, executor=executor, progress=step.tick)
        try:
            return _evaluate(own, evaluation, values, failed, on_inconclusive)
        finally:
            step.end()

    def label(evaluation: Evaluation) -> str:
        return f"evaluating {evaluation.rule.id} ({evaluation.spec.name})"

    threads = min(ctx.executor.threads, len(steps)) if ctx.executor.workers > 1 else 1
    if threads <= 1:
        return [evaluate(e, progress.step(j, total, label(e)), ctx.executor) for j, e in steps]
    shared = OneMapAtATime(ctx.executor)
    queue = iter(steps)

    def take() -> tuple[Evaluation, Step] | None:  # under in_turn's lock: steps begin, and show, in order
        j, evaluation = next(queue, (0, None))
        return None if evaluation is None else (evaluation, progress.begin(j, total, label(evaluation)))

    return in_turn(take, lambda taken: evaluate(*taken, shared), threads)


def _evaluate(
    ctx: EvaluationContext,
    evaluation: Evaluation,
    values: dict[Need, Any],
    failed: dict[Need, str],
    on_inconclusive: str,
) -> RuleOutcome:
    # NOTE: Needs that failed for one cause (the original records' attack and
    # its holdout control, say) share one message, so it is said once.
    causes: dict[str, list[str]] = {}
    for need in evaluation.needs:
        if need in failed:
            causes.setdefault(failed[need], []).append(need.label)
    if causes:
        broken = [f"{' and '.join(labels)}: {cause}" for cause, labels in causes.items()]
        return RuleOutcome.failed(evaluation, "could not compute " + "; ".join(broken), on_inconclusive)
    t0 = time.perf_counter()
    try:
        result = evaluation.spec.evaluate(ctx, evaluation.params, {n: values[n] for n in evaluation.needs})
        judged = judge_result(evaluation.rule.threshold, result)
    except Exception as exc:  # noqa: BLE001 - an evaluator error is a verdict, exit 3
        return RuleOutcome.failed(evaluation, _describe(exc), on_inconclusive, time.perf_counter() - t0)
    return RuleOutcome(evaluation, judged, result, seconds=time.perf_counter() - t0, on_inconclusive=on_inconclusive)


def _describe(exc: Exception) -> str:
    """An evaluator's words for users (an EvaluationError's message), else where policycheck broke."""
    if isinstance(exc, EvaluationError):
        return str(exc)
    # NOTE: any other exception is a bug in policycheck (a ValueError too: its
    # text was written for a programmer); keep the last frame so the report
    # says where, without dumping a traceback on users.
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" (at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})" if frame else ""
    return f"internal error {type(exc).__name__}: {exc}{where}"
