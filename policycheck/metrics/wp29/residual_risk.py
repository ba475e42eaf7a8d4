"""Each set's attack against its control, and the worst set: the residual risk every Article 29 rule reports.

anonymeter's statistic (Giomi et al. 2023, sec. 3.3;
:mod:`policycheck.methods.wp29.rates`): against the holdout control, the
residual ``(main - control) / (1 - control)`` with the Wilson half-widths
propagated; without a holdout, the main attack's own rate (the random-guess
baseline is reported, not subtracted). The combinator
(:func:`policycheck.metrics.combinators.against_control`) picks the baseline;
:func:`policycheck.metrics.combinators.worst_of_sets` the worst set.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from policycheck.metrics.base import EvaluationContext, MetricResult
from policycheck.metrics.combinators import AgainstControl, Baseline, Estimate, Records, against_control, worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.release.model import Dataset

if TYPE_CHECKING:
    from policycheck.methods.wp29.rates import AttackCounts, SuccessRate

CONTROL_LABEL = "the same attack on holdout records the synthesizer never saw (control)"
CHANCE_LABEL = "a random-guess attacker (anonymeter's baseline)"
INTERVAL_METHOD = "Wilson score per rate, error propagated to the residual risk (anonymeter 1.1)"


class SetRisk(Details):
    """One synthetic set's three attacks (main, random guess, control) and its risk."""

    synthetic: str = detail("Synthetic set")
    risk: float = detail("Risk", format="share")
    interval: tuple[float, float] = detail("Risk interval", help="at the Bonferroni level over the sets")
    attacks: int = detail("Attacks made", unit="attacks")
    main_successes: int = detail("Successes on the original records", unit="attacks")
    main_rate: float = detail("Success rate on the original records", format="share", help="Wilson estimate")
    baseline_successes: int = detail("Random-guess successes", unit="attacks")
    baseline_attacks: int = detail("Random-guess attacks", unit="attacks")
    baseline_rate: float = detail("Random-guess success rate", format="share", help="Wilson estimate")
    control_successes: float | None = detail(
        "Successes on the holdout records", help="rescaled to the original's size when the sizes differ"
    )
    control_rate: float | None = detail("Success rate on the holdout records", format="share")


class Wp29Details(Details):
    """What every Article 29 rule reports beside its sets' rows."""

    worst_set: str = detail("Worst set")
    risk_formula: str = detail("Risk")
    interval_method: str = detail("Interval")


def residual(main: SuccessRate, baseline: Baseline[SuccessRate] | None, level: float) -> Estimate:
    """anonymeter's risk: the residual against the holdout control, else the main rate; clipped to [0, 1].

    The rates are Wilson estimates already at the set's level, so ``level`` adds nothing.
    """
    from policycheck.methods.wp29.rates import bound, residual_success

    control = None if baseline is None else baseline.control
    risk = bound(main if control is None else residual_success(main, control))
    return Estimate(risk.value, risk.interval)


@dataclass(frozen=True)
class SetOutcome:
    """One set measured: its risk against the baseline, its counts, its row and its notes."""

    against: AgainstControl[SuccessRate]
    counts: AttackCounts
    row: SetRisk
    notes: list[str]


def risk_of_worst_set(
    ctx: EvaluationContext,
    confidence: float,
    run: Callable[[int], tuple[AttackCounts, dict[str, Any], list[str]]],
    criterion: str,
    row: type[SetRisk],
    details: Callable[..., Wp29Details],
) -> MetricResult:
    """Run the attacks per synthetic set; report the worst set's risk, with anonymeter's rates and notes beside it.

    ``run(i)`` attacks set ``i`` and returns its counts, the fields of its
    ``row`` beyond :class:`SetRisk`'s, and its notes; ``details`` adds
    ``per_set`` to :class:`Wp29Details`.
    """

    def measure(i: int, dataset: Dataset, level: float) -> SetOutcome:
        counts, extra, notes = run(i)
        rates = counts.rates(level)
        main, chance = rates["main"], rates["baseline"]
        assert main is not None and chance is not None  # only the control may be missing
        attacked: dict[Records, SuccessRate | None] = {"original": main, "holdout": rates["control"]}
        against = against_control(attacked.__getitem__, _value, residual, level, chance=chance.value)
        entry = row(
            synthetic=dataset.name,
            risk=against.value,
            interval=against.interval,
            attacks=counts.n_attacks,
            main_successes=counts.n_success,
            main_rate=main.value,
            baseline_successes=counts.n_baseline,
            baseline_attacks=counts.n_baseline_attacks,
            baseline_rate=chance.value,
            control_successes=counts.n_control,
            control_rate=None if against.control is None else against.control.value,
            **extra,
        )
        if chance.value >= main.value:
            notes.append(
                f"On {dataset.name} the {criterion} attack does no better than random guessing "
                f"({main.value:.3f} against {chance.value:.3f}); anonymeter warns that such a "
                "result cannot be trusted as a measure of the attack's strength."
            )
        return SetOutcome(against, counts, entry, notes)

    sets = worst_of_sets(ctx, confidence, measure, lambda o: o.against.value)
    worst = sets.worst
    assert worst is not None  # every set has a risk
    has_control = worst.against.control is not None
    notes = worst.notes
    if not has_control:
        notes = [
            *notes,
            "The release has no holdout, so there is no control attack: the value is the main attack's success rate, "
            "which includes what an attacker gets for anyone (compare it with the random-guess baseline).",
        ]
    rows = [o.row for o in sets.per_set]
    return MetricResult(
        value=worst.against.value,
        interval=worst.against.interval,
        confidence=sets.level,
        details=details(
            worst_set=worst.row.synthetic,
            risk_formula="(main - control) / (1 - control)" if has_control else "main attack success rate",
            interval_method=INTERVAL_METHOD,
            per_set=rows,
        ),
        charts=(_chart(criterion, rows, has_control),),
        notes=tuple(dict.fromkeys(notes)),
        baseline=worst.against.baseline.rate,
        raw=worst.against.raw,
        baseline_label=CONTROL_LABEL if has_control else CHANCE_LABEL,
        sample_size=worst.counts.n_attacks,
    )


def _value(rate: SuccessRate) -> float:
    return rate.value


def _chart(criterion: str, rows: list[SetRisk], has_control: bool) -> dict[str, Any]:
    """Success rates per set: the main attack, the random guess and (with a holdout) the control."""
    names = [r.synthetic for r in rows]
    series: list[dict[str, Any]] = [
        {"name": "main (original records)", "x": names, "y": [r.main_rate for r in rows]},
        {"name": "random guess", "x": names, "y": [r.baseline_rate for r in rows]},
    ]
    if has_control:
        series.append({"name": "control (holdout)", "x": names, "y": [r.control_rate for r in rows]})
    return {
        "kind": "bar",
        "title": f"{criterion.capitalize()} attack success by attacker",
        "x_label": "synthetic set",
        "y_label": "success rate (Wilson estimate)",
        "series": series,
    }
