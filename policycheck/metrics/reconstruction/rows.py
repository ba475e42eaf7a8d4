"""One row per (synthetic set, attack): its accuracy and, against the holdout control, its individual part.

The individual part of an attack's accuracy is what the same attack does not
get on holdout records, which the synthesizer never saw:
``(acc - acc_control) / (1 - acc_control)`` (:func:`individual_risk`), the
family's statistic for the holdout-control combinator
(:func:`policycheck.metrics.combinators.against_control`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from policycheck.methods.reconstruction.attacks import ATTACK_WORDS
from policycheck.metrics.combinators import Baseline, Estimate, Records, against_control
from policycheck.metrics.details import Details, detail
from policycheck.metrics.reconstruction.columns import plain

if TYPE_CHECKING:
    from policycheck.metrics.reconstruction.reconstruction_attacks import ReconstructionRun


class LpSolve(Details):
    """How one LP was solved (policycheck.methods.reconstruction.lp_attack.SolveInfo)."""

    form: str = detail("Form solved", help="primal (a row per query) or dual (a row per record)")
    rows: int = detail("Rows", unit="rows")
    columns: int = detail("Columns", unit="columns")
    nonzeros: int = detail("Non-zeros")
    objective: float = detail("Objective")
    seconds: float = detail("Solve time", unit="seconds")
    status: str = detail("Solver status")


class LpRun(Details):
    """The LP reconstruction attack's queries and solves on one synthetic set (paper 001, sec. 4.2)."""

    queries_enumerated: int = detail("Queries enumerated")
    queries_sampled: int = detail("Queries sampled")
    queries_answered: int = detail("Queries the synthetic data answers")
    query_orders: list[int] = detail("Query orders")
    scaling: str = detail("Answer scaling")
    numeric_bins: dict[str, list[float]] = detail("Inner bin edges of each numeric quasi-identifier")
    solves: list[LpSolve] = detail("Solves")


class AttackRow(Details):
    """One attack on one synthetic set: its accuracy and, with a holdout, its control and individual part."""

    set: str = detail("Synthetic set")
    attack: str = detail("Attack")
    description: str = detail("What the attack does")
    accuracy: float = detail("Accuracy on the original records", format="share")
    interval: tuple[float, float] = detail("Accuracy interval", help="Clopper-Pearson, at the Bonferroni level")
    correct: int = detail("Secrets guessed right", unit="records")
    records: int = detail("Original records with a secret", unit="records")
    effective_records: float | None = detail(
        "Effective original records",
        unit="records",
        default=None,
        help="What the records are worth as independent trials where a person has several (Kish's design "
        "effect); the intervals count these",
    )
    lp: LpRun | None = detail("LP run", default=None)
    control_accuracy: float | None = detail("Accuracy on the holdout records", format="share", default=None)
    control_interval: tuple[float, float] | None = detail("Holdout accuracy interval", default=None)
    individual_risk: float | None = detail(
        "Individual part", default=None, help="(acc - acc_control) / (1 - acc_control)"
    )
    individual_interval: tuple[float, float] | None = detail(
        "Individual part interval", default=None, help="Koopman's score interval of the error ratio, mapped"
    )


def individual_estimate(row: AttackRow) -> Estimate:
    """A row's individual part and its interval (every row measured against the holdout control has both)."""
    assert row.individual_risk is not None and row.individual_interval is not None
    return Estimate(row.individual_risk, row.individual_interval)


def pair_names(rows: Sequence[AttackRow]) -> list[str]:
    """How a note names each row's (set, attack) pair: its attack, and its set where the release has several."""
    several = len({row.set for row in rows}) > 1
    return [f"{row.attack} (set {row.set!r})" if several else row.attack for row in rows]


@dataclass(frozen=True)
class Hits:
    """Secrets an attack guessed right among the attacked records whose secret is known."""

    correct: int
    records: int
    #: How many independent trials the records are worth (fewer where a person has several records).
    effective: float

    @property
    def accuracy(self) -> float:
        return self.correct / self.records

    def interval(self, level: float) -> tuple[float, float]:
        """The accuracy's Clopper-Pearson interval; over the effective records where they are fewer
        (Korn and Graubard's, :func:`policycheck.core.stats.clopper_pearson_share`)."""
        from policycheck.core import stats

        if self.effective >= self.records:
            return stats.clopper_pearson(self.correct, self.records, level)
        return stats.clopper_pearson_share(self.accuracy, self.effective, level)


def individual_risk(
    correct: float, n: float, control_correct: float, n_control: float, confidence: float
) -> tuple[float, tuple[float, float]]:
    """Control-corrected accuracy ``(acc - acc_c) / (1 - acc_c)`` and its interval.

    The risk is one minus the ratio of the error rates on the attacked and on
    the control records, ``1 - err / err_c``; its interval is Koopman's score
    interval of that ratio (:func:`policycheck.core.stats.ratio_score_interval`),
    one interval for the two samples together. (Joining opposite ends of two
    separate intervals would be far wider: dividing by ``1 - acc_c = 0.15``
    turns two 2-point intervals into a 30-point one.) A control that makes no
    error leaves nothing to measure: the risk is 0 when the attack makes none
    either, else below -1. Values below -1 (the attack errs more than twice as
    often on the attacked records as on the control) are reported as -1.
    """
    from policycheck.core import stats

    errors, control_errors = n - correct, n_control - control_correct
    ratio_lo, ratio_hi = stats.ratio_score_interval(errors, n, control_errors, n_control, confidence)
    return _risk(correct, n, control_correct, n_control), (max(1.0 - ratio_hi, -1.0), 1.0 - ratio_lo)


def _risk(correct: float, n: float, control_correct: float, n_control: float) -> float:
    """``1 - err / err_c``, floored at -1; 0 where neither errs, -1 where only the attack does."""
    errors, control_errors = n - correct, n_control - control_correct
    if control_errors == 0:
        return 0.0 if errors == 0 else -1.0
    return max(1.0 - (errors / n) / (control_errors / n_control), -1.0)


def individual_part(main: Hits, baseline: Baseline[Hits] | None, level: float) -> Estimate:
    """The family's statistic against the holdout control: :func:`individual_risk` and its interval."""
    if baseline is None or baseline.control is None:
        raise ValueError("the individual part of an accuracy is measured against the holdout control only")
    control = baseline.control
    if main.effective >= main.records and control.effective >= control.records:
        return Estimate(*individual_risk(main.correct, main.records, control.correct, control.records, level))
    # A person's records are one cluster: the ratio's interval over the effective records, the accuracies kept.
    _, interval = individual_risk(
        main.accuracy * main.effective,
        main.effective,
        control.accuracy * control.effective,
        control.effective,
        level,
    )
    return Estimate(_risk(main.correct, main.records, control.correct, control.records), interval)


def attack_row(
    run: ReconstructionRun, control: ReconstructionRun | None, key: tuple[int, str], level: float
) -> AttackRow:
    """The row of one (set, attack) pair, its intervals at ``level``; against the control when there is one."""
    i, attack = key
    attacked = Hits(run.correct(i, attack), run.n, run.effective(i, attack))
    info = run.outcomes[key].info
    row: dict[str, Any] = {
        "set": run.set_names[i],
        "attack": attack,
        "description": ATTACK_WORDS[attack],
        "accuracy": attacked.accuracy,
        "interval": attacked.interval(level),
        "correct": attacked.correct,
        "records": run.n,
        "effective_records": attacked.effective if attacked.effective < run.n else None,
        "lp": LpRun(**info) if info else None,
    }
    if control is not None:
        hits: dict[Records, Hits] = {
            "original": attacked,
            "holdout": Hits(control.correct(i, attack), control.n, control.effective(i, attack)),
        }
        found = against_control(hits.__getitem__, lambda h: h.accuracy, individual_part, level)
        held = hits["holdout"]
        row.update(
            control_accuracy=held.accuracy,
            control_interval=held.interval(level),
            individual_risk=found.value,
            individual_interval=found.interval,
        )
    return AttackRow(**row)


class MajorityGuess(Details):
    """Guessing the synthetic set's most common secret for everyone: what no record-level link is needed for."""

    set: str = detail("Synthetic set")
    guess: Any = detail("Most common synthetic secret")
    accuracy: float = detail("Accuracy on the original records", format="share")


def majority_guesses(run: ReconstructionRun, synthetic_secrets: list[Any]) -> list[MajorityGuess]:
    """Majority-class baseline per set: guess the synthetic data's most common secret for everyone."""
    import numpy as np

    from policycheck.methods.reconstruction.baselines import class_codes

    out = []
    for i, secrets in enumerate(synthetic_secrets):
        codes = class_codes(secrets, np.array(run.classes, dtype=object))
        majority = int(np.bincount(codes[codes >= 0], minlength=len(run.classes)).argmax())
        correct = int((run.truth == majority).sum())  # records with a missing secret are -1: never counted
        out.append(MajorityGuess(set=run.set_names[i], guess=plain(run.classes[majority]), accuracy=correct / run.n))
    return out
