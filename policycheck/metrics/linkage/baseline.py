"""A linkage rule's rate against its baseline: chance, or the same attack on holdout records.

The rate is the share of original records (with a known secret) the attack
flags: narrowed, disclosed or misled. :func:`against_baseline` sets it against
chance and the holdout control with the one holdout-control combinator
(:func:`policycheck.metrics.combinators.against_control`), the family's
statistic being a difference of rates over effective record counts
(:func:`difference`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from policycheck.core.errors import EvaluationError
from policycheck.metrics.combinators import Baseline, Estimate, Records, against_control
from policycheck.metrics.details import Details, detail
from policycheck.metrics.linkage.params import LinkageParams

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np

    from policycheck.methods.linkage import chance
    from policycheck.methods.linkage.attack import LinkageAttack
    from policycheck.methods.linkage.range_narrowing import AttributeDisclosure

CHANCE_WORDS = "chance: the secret independent of the linkage attributes, drawn from its marginal in the original"


@dataclass(frozen=True)
class Tally:
    """Flagged records among those with a known secret, and how many independent trials they are worth."""

    count: int
    records: int
    #: Records linked to the same synthetic records count as one cluster (Kish's design effect); a person's
    #: records are a second, crossed clustering (two-way variance).
    effective: float

    @property
    def rate(self) -> float:
        return self.count / self.records


def tally(attack: LinkageAttack, flags_of: Callable[[AttributeDisclosure], np.ndarray]) -> Tally | None:
    """The attack's flagged records (``flags_of``) among those with a known secret; None if no secret is known.

    Records linked to the same synthetic records share one identified range,
    so they are one cluster (:attr:`LinkageAttack.linked_set_clusters`) of
    :func:`policycheck.core.stats.effective_trials`; where an id column names
    people, a person's records are a second clustering across the first
    (:attr:`LinkageAttack.people`), and the variance is two-way.
    """
    import numpy as np

    from policycheck.core import stats

    known = attack.disclosure.known
    n = int(np.count_nonzero(known))
    if n == 0:
        return None
    flags = flags_of(attack.disclosure) & known
    people = attack.people[known] if attack.people is not None else None
    effective = stats.effective_trials(flags[known], np.ones(n), attack.linked_set_clusters[known], people)
    return Tally(int(np.count_nonzero(flags)), n, effective)


def difference(main: Tally, baseline: Baseline[Tally] | None, level: float) -> Estimate:
    """The rate minus its baseline, with its interval at ``level`` (the family's statistic).

    Against chance (computed from the whole original and treated as known):
    the Clopper-Pearson interval of the rate, shifted. Against the holdout
    control: Newcombe's interval of the difference of two rates. Without a
    baseline (``baseline: none``): the rate and its Clopper-Pearson interval.
    Every interval counts effective records.
    """
    from policycheck.core import stats

    raw = main.count / main.records
    if baseline is None:
        return Estimate(raw, stats.clopper_pearson_share(raw, main.effective, level))
    if baseline.control is None:
        lo, hi = stats.clopper_pearson_share(raw, main.effective, level)
        return Estimate(raw - baseline.rate, (lo - baseline.rate, hi - baseline.rate))
    control = baseline.control
    share = control.count / control.records
    # NOTE: Newcombe's interval over effective sizes: the Wilson score formula takes fractional counts
    # (stats.newcombe_difference is annotated for whole ones).
    interval = stats.newcombe_difference(
        raw * main.effective,  # type: ignore[arg-type]
        main.effective,  # type: ignore[arg-type]
        share * control.effective,  # type: ignore[arg-type]
        control.effective,  # type: ignore[arg-type]
        level,
    )
    return Estimate(raw - share, interval)


class BaselineDetails(Details):
    """A rule's rate against chance and the holdout control."""

    mode: Literal["auto", "chance", "holdout", "none"] = detail(
        "Baseline asked for", help="params.baseline: auto, chance, holdout or none (the raw rate)."
    )
    chance: float = detail("Rate by chance", format="share", help=CHANCE_WORDS)
    holdout: float | None = detail(
        "Rate on the holdout records", format="share", help="The same attack on records the synthesizer never saw."
    )
    holdout_records: int | None = detail("Holdout records with a secret", unit="records")
    used: Literal["chance", "holdout"] = detail(
        "Baseline used", help="The better of those considered for the attacker."
    )
    raw: float = detail("Rate on the original records", format="share")
    records: int = detail("Original records with a secret", unit="records")
    effective_records: float = detail(
        "Effective original records",
        unit="records",
        help="Records linked to the same synthetic records count as one cluster (Kish's design effect); where "
        "an id column names people, a person's records are a second, crossed clustering (two-way variance).",
    )
    holdout_effective_records: float | None = detail("Effective holdout records", unit="records")
    rule: str = detail("How the value is formed")
    level: float | None = detail(
        "Confidence of each baseline's interval",
        format="share",
        help="Bonferroni-corrected over the baselines considered; none when the baseline is only reported.",
    )


@dataclass(frozen=True)
class Compared:
    """A rule's rate set against its baseline: what the threshold compares, and the evidence."""

    value: float
    interval: tuple[float, float]
    raw: float | None
    baseline: float
    label: str
    details: BaselineDetails
    sample_size: int
    #: Whose baseline comparison gave an end of the interval, where not the one the value is measured against.
    borrowed: str | None = None


def against_baseline(
    params: LinkageParams,
    attack: LinkageAttack,
    control: LinkageAttack | None,
    flags_of: Callable[[AttributeDisclosure], np.ndarray],
    chance_rate: float,
    higher_is_riskier: bool = True,
) -> Compared:
    """Compare the attack's rate with chance and with the same attack on holdout records.

    The baseline is the better of the two for the attacker (the larger rate
    when a higher rate is riskier, the smaller when it is safer) and the value
    is ``raw - baseline``. With both baselines each interval is at the
    Bonferroni level for 2 and the interval is that of the smaller (larger)
    difference (:func:`policycheck.metrics.combinators.against_control`,
    :func:`difference`). ``baseline: chance`` or ``holdout`` considers that
    one only; ``baseline: none`` compares the raw rate, with its
    Clopper-Pearson interval, and reports the baseline beside it.
    """
    tallies: dict[Records, Tally | None] = {
        "original": tally(attack, flags_of),
        "holdout": None if control is None or params.baseline == "chance" else tally(control, flags_of),
    }
    if params.baseline == "holdout" and tallies["holdout"] is None:
        raise EvaluationError(
            "params.baseline is 'holdout', but the release has no holdout records with a value of the secret; "
            "add a holdout set or use baseline 'chance'."
        )
    found = against_control(
        tallies.__getitem__,
        lambda t: t.count / t.records,
        difference,
        params.confidence,
        chance=chance_rate,
        pick="holdout" if params.baseline == "holdout" else "better",
        compare=params.baseline != "none",
        higher_is_worse=higher_is_riskier,
    )
    main, holdout = found.main, found.control
    used = [b.name for b in found.considered]
    if params.baseline == "none":
        rule = "value = raw rate (baseline: none); the baseline is reported, not subtracted"
    else:
        larger = "larger" if higher_is_riskier else "smaller"
        rule = (
            f"value = raw rate - baseline; the baseline is the {larger} of {' and '.join(used)}, "
            "the better for the attacker"
        )
    details = BaselineDetails(
        mode=params.baseline,
        chance=chance_rate,
        holdout=None if holdout is None else holdout.count / holdout.records,
        holdout_records=None if holdout is None else holdout.records,
        used=found.baseline.name,
        raw=found.raw,
        records=main.records,
        effective_records=main.effective,
        holdout_effective_records=None if holdout is None else holdout.effective,
        rule=rule,
        level=found.level,
    )
    versus = found.baseline.control
    if versus is None:
        label = CHANCE_WORDS
    else:
        label = f"the same attack on the {versus.records} holdout records, which the synthesizer never saw"
    raw = None if params.baseline == "none" else found.raw
    return Compared(found.value, found.interval, raw, found.baseline.rate, label, details, main.records, found.borrowed)


def marginal_and_counts(attack: LinkageAttack) -> tuple[chance.SecretMarginal, np.ndarray, np.ndarray]:
    """The marginal chance draws from, and the known records' true codes and candidates per set.

    Reverse-mapped secrets are the original's values, so chance draws from the
    original's marginal; secrets read as released draw from the released
    secrets' own marginal, pooled over the sets (a release that puts every
    record at the most common value reveals it to that value's share of people
    by chance, not to the original's sum of squares).
    """
    import numpy as np

    from policycheck.methods.linkage import chance

    d = attack.disclosure
    known = d.known
    if attack.mapping == "released":
        marginal = chance.SecretMarginal.of(np.concatenate([s.secret for s in attack.sets]), also=d.true)
    else:
        marginal = chance.SecretMarginal.of(d.true)
    return marginal, d.true[known], attack.candidates_by_set()[known]
