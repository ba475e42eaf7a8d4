"""What a run decided for each rule: immutable outcomes, each a step of the verdict's derivation.

A rule's outcome is made once from its measurement (:func:`policycheck.engine.runner.run_plan`);
the later steps (a claim another rule refuted, :mod:`policycheck.engine.claims`; a waiver,
:mod:`policycheck.engine.waivers`) return new outcomes instead of changing it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from policycheck.engine.compiler import Evaluation
from policycheck.engine.verdicts import Judgement, Verdict
from policycheck.metrics.base import MetricResult
from policycheck.policy.model import Waiver


@dataclass(frozen=True)
class RuleOutcome:
    """One rule's verdict: its judgement (None when it could not be evaluated), evidence and waiver."""

    evaluation: Evaluation
    #: The verdict on the measurement and why; None when the rule errored.
    judgement: Judgement | None
    result: MetricResult | None = None
    #: Why the rule could not be evaluated (its verdict is then ``error``, exit code 3).
    error: str | None = None
    seconds: float = 0.0
    #: What an inconclusive verdict does to the release (the rule's or the policy's on_inconclusive).
    on_inconclusive: str = "warn"
    #: The live waiver that accepted the verdict.
    waiver: Waiver | None = None

    @classmethod
    def failed(cls, evaluation: Evaluation, error: str, on_inconclusive: str, seconds: float = 0.0) -> RuleOutcome:
        """The outcome of a rule that could not be evaluated."""
        return cls(evaluation, None, error=error, seconds=seconds, on_inconclusive=on_inconclusive)

    @property
    def rule_id(self) -> str:
        return self.evaluation.rule.id

    @property
    def raw_verdict(self) -> Verdict:
        """The verdict before a waiver."""
        return self.judgement.verdict if self.judgement is not None else Verdict.ERROR

    @property
    def verdict(self) -> Verdict:
        return Verdict.WAIVED if self.waiver is not None else self.raw_verdict

    @property
    def measured(self) -> float | None:
        """The value compared with the threshold."""
        return self.judgement.compared if self.judgement is not None else None

    @property
    def reason(self) -> str | None:
        """Plain words for a verdict its name does not explain (inconclusive, a refuted claim)."""
        return self.judgement.reason if self.judgement is not None else None

    @property
    def records_to_settle(self) -> int | None:
        """Records that would settle the level this sample leaves unsettled, when known."""
        return self.judgement.records_to_settle if self.judgement is not None else None

    @property
    def decided_on(self) -> str | None:
        """The decision rule that decided (interval, estimate, upper, lower, refuted_claim)."""
        return self.judgement.decided_on if self.judgement is not None else None

    @property
    def decision(self) -> str | None:
        """Which numbers decided, against which level, in words."""
        return self.judgement.decision if self.judgement is not None else None

    @property
    def unsettled(self) -> str | None:
        """The level this sample leaves unsettled: "fail" (inconclusive) or "warn" (a warn not shown beyond it)."""
        return self.judgement.unsettled if self.judgement is not None else None


@dataclass(frozen=True)
class RunResult:
    """Every rule's outcome of one run, with its seed, times and the waivers no verdict needed."""

    outcomes: tuple[RuleOutcome, ...]
    seed: int
    started: dt.datetime
    finished: dt.datetime
    intermediate_seconds: dict[str, float]
    unused_waivers: tuple[str, ...] = ()
