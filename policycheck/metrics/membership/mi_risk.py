"""``mi_risk``: the membership-inference risk of a distance-threshold attack (paper 002, sec. 4)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.methods.membership_test import DEFAULT_LEVELS
from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need, Resolution
from policycheck.metrics.combinators import BonferroniNote, Estimate, bonferroni_note, worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.membership.common import SURE, membership_metric
from policycheck.metrics.membership.gower_dcr import dcrs_in_set_order
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.release.model import Release

if TYPE_CHECKING:
    import numpy as np

    from policycheck.methods.membership_test import MembershipTest

#: Most points drawn on a ROC chart; the curve is thinned evenly beyond it.
ROC_POINTS = 201

METHOD = Method(
    definition="(mean precision - 0.5) x 2 of a threshold attack on a balanced adversary set of training and holdout "
    "records: a record whose DCR to the synthetic set is at or below a threshold (its 0.5, 0.25, 0.2, 0.01 "
    "quantiles) is guessed a member. Not clipped: 0 is its no-leak expectation. Stratified bootstrap interval "
    "(resampling people where an id column names them).",
    source="paper 002, sec. 4",
    conventions=(
        Convention(
            topic="quantile rule",
            peer=SURE,
            theirs="thresholds np.quantile(d, [0.5, 0.25, 0.2, min(d) + 0.01]), the last a distance used as a "
            "level; member when d < t, so a threshold at the smallest distance guesses nobody (precision 0)",
            ours="inverted-CDF quantiles at 0.5, 0.25, 0.2, 0.01 (each an observed DCR); member when d <= t",
            effect="mi_risk/quantile-rule",
        ),
        Convention(
            topic="precision floor",
            peer=SURE,
            theirs="each precision floored at 0.5, the risk clipped at 0",
            ours="neither: each precision's no-leak expectation is 0.5, so a floor lifts a safe release above 0",
            effect="mi_risk/precision-floor",
        ),
        Convention(
            topic="adversary set and its ranges",
            peer=SURE,
            theirs="min(int(0.2 (n_train + n_holdout) / 2), n_holdout) records of each (600 + 600 on the demo, "
            "random_state 42), numeric ranges over that set and the synthetic set",
            ours="every record of the smaller set and as many of the other, the ranges of the DCR share",
            effect="mi_risk/adversary-set",
        ),
        Convention(
            topic="all of SURE's conventions",
            peer=SURE,
            theirs="the three above together (SURE's MI risk)",
            ours="ours",
            effect="mi_risk/sure",
        ),
    ),
)


class MiRiskParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns the Gower distance uses; all columns of the release when omitted."
    )
    adversary_size: int | None = Field(
        None,
        ge=1,
        description=(
            "Training records and, as many, holdout records in the adversary set; by default as many as the "
            "smaller of the two sets holds."
        ),
    )
    quantile_levels: list[Annotated[float, Field(ge=0, le=1)]] = Field(
        default_factory=lambda: list(DEFAULT_LEVELS),
        min_length=1,
        description=(
            "Quantile levels (each within [0, 1]) of the adversary set's distances used as attack thresholds; "
            "a record at or below a threshold is guessed a member."
        ),
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of every interval.")
    bootstrap_resamples: int = Field(
        200, ge=20, le=10_000, description="Bootstrap resamples behind the interval of the MI risk."
    )


class AttackThreshold(Details):
    """The attack at one quantile level of the adversary set's distances."""

    quantile_level: float = detail("Quantile level", format="share")
    distance: float = detail("Threshold distance", help="A record at or below it is guessed a member.")
    guessed_members: int = detail("Guessed members", unit="adversary records")
    true_members: int = detail("Of them training records", unit="adversary records")
    precision: float = detail("Precision", format="share")
    precision_interval: tuple[float, float] = detail("Precision interval")
    recall: float = detail("Recall", format="share")
    recall_interval: tuple[float, float] = detail("Recall interval")


class MiRiskSet(Details):
    """One synthetic set's attack."""

    synthetic: str = detail("Synthetic set")
    mi_risk: float = detail("MI risk", help="(mean precision - 0.5) x 2.")
    interval: tuple[float, float] = detail(
        "Interval",
        help="Stratified bootstrap at the Bonferroni level, of people where an id column names them.",
    )
    auc: float = detail("AUC of the distance", format="share")
    mean_precision: float = detail("Mean precision", format="share")
    thresholds: list[AttackThreshold] = detail("Per threshold")


class AdversarySet(Details):
    """The records the attack guesses about: as many training as holdout records."""

    members: int = detail("Training records", unit="records")
    non_members: int = detail("Holdout records", unit="records")
    blind_guess_precision: float = detail("Precision of a blind guess", format="share")
    guess: str = detail("Guess")


class MiRiskDetails(Details):
    worst_set: str = detail("Worst synthetic set")
    adversary_set: AdversarySet = detail("Adversary set")
    no_leak_expectation: float = detail("Risk under no leakage")
    clipping: str = detail("Clipping")
    per_set: list[MiRiskSet] = detail("Per synthetic set")
    bonferroni: BonferroniNote = detail("Several synthetic sets")
    gower: dict[str, Any] = detail("Gower convention", help="The distance's convention and its numbers.")


def mi_risk_resolution(params: MiRiskParams, release: Release) -> Resolution:
    """The MI risk's interval at no leak, from the permutation variance of the attack's precisions.

    Paper 002, sec. 4: with no leakage, which of the 2m adversary records are members is
    unrelated to their distances, so the members among the k_l closest are hypergeometric:
    Cov(X_j, X_k) = j (N - k) / (4 (N - 1)) for nested top-j within top-k of N = 2m records
    (half of them members). The risk 2 (mean_l X_l / k_l - 1/2) then has variance
    (4 / L^2) sum_{l, l'} Cov(X_l, X_l') / (k_l k_l'), with k_l = ceil(q_l N) records
    guessed at quantile level q_l (distinct distances assumed: ties make the thresholds
    take more records and the interval narrower). Normal approximation.
    """
    import math
    from statistics import NormalDist

    from policycheck.core import stats

    holdout = release.holdout.n_rows if release.holdout is not None else release.original.n_rows
    m = params.adversary_size or min(release.original.n_rows, holdout)
    total = 2 * m
    ks = [min(total, max(1, math.ceil(q * total))) for q in params.quantile_levels]

    def cov(j: int, k: int) -> float:
        low, high = min(j, k), max(j, k)
        return low * (total - high) / (4 * (total - 1)) if total > 1 else 0.0

    variance = 4 / len(ks) ** 2 * sum(cov(a, b) / (a * b) for a in ks for b in ks)
    level = stats.bonferroni(params.confidence, len(release.synthetic))
    z = NormalDist().inv_cdf(1 - (1 - level) / 2)
    return Resolution(
        0.0,
        z * math.sqrt(variance),
        total,
        "adversary records",
        "half training, half holdout records; the attack's precisions when membership is unrelated to "
        "distance (hypergeometric), normal approximation, distinct distances assumed: ties, as on coarse "
        "data, make the thresholds take more records and the interval narrower",
        level,
        width_is="at most",
    )


def attack_row(name: str, test: MembershipTest) -> MiRiskSet:
    """One set's attack as the report shows it: the risk, its interval and every threshold's figures."""
    import numpy as np

    thresholds = [
        AttackThreshold(
            quantile_level=float(level),
            distance=float(t),
            guessed_members=int(g),
            true_members=int(tp),
            precision=float(pr),
            precision_interval=pi,
            recall=float(rc),
            recall_interval=ri,
        )
        for level, t, g, tp, pr, pi, rc, ri in zip(
            test.levels,
            test.thresholds,
            test.guessed,
            test.true_positives,
            test.precision,
            test.precision_interval,
            test.recall,
            test.recall_interval,
            strict=True,
        )
    ]
    return MiRiskSet(
        synthetic=name,
        mi_risk=test.risk,
        interval=test.risk_interval,
        auc=test.auc,
        mean_precision=float(np.mean(test.precision)),
        thresholds=thresholds,
    )


@membership_metric(
    name="mi_risk",
    method=METHOD,
    params=MiRiskParams,
    details=MiRiskDetails,
    resolution=mi_risk_resolution,
    # Not clipped at 0: a negative risk is an attack worse than a blind guess.
    value_range=(-1.0, 1.0),
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS},
    meaning=(
        "How much better than a coin flip an attacker who holds real records, half of them training records, "
        "guesses which were used for training, by flagging those that lie closest to a synthetic record: the share "
        "of flags that are right, averaged over several distance cut-offs, rescaled so that 0 is no better than "
        "guessing and 1 is every flag right. A measure over the whole set, not of any one person (the "
        "membership_inference_advantage rule judges the most exposed). Below 0.2 is commonly read as a very low risk."
    ),
    remedy=(
        "Regenerate with a synthesizer that overfits less (fewer training epochs, more noise or a differential "
        "privacy budget), and remove synthetic records that copy or nearly copy training records."
    ),
)
def mi_risk(ctx: EvaluationContext, params: MiRiskParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Membership-inference risk: (mean precision of a distance-threshold attack - 0.5) * 2.

    Paper 002, sec. 4: a balanced adversary set of training and holdout
    records, each scored by its DCR to the synthetic set; at quantile
    thresholds of those DCRs a record at or below the threshold is guessed a
    member; the risk is ``(mean precision - 0.5) * 2``, with a bootstrap
    interval. It is not clipped at 0, so its expectation under no leakage is
    0 (see :mod:`policycheck.methods.membership_test`). With several
    synthetic sets the value is the largest risk.
    """
    from policycheck.methods.membership_test import membership_inference_test, sample_adversary_set

    dcrs = dcrs_in_set_order(needs)
    n_train, n_hold = dcrs[0].training_to_syn.size, dcrs[0].holdout_to_syn.size
    size = params.adversary_size or min(n_train, n_hold)
    if size > min(n_train, n_hold):
        raise EvaluationError(
            f"adversary_size is {size}, but the training set has {n_train} and the holdout set {n_hold} records; "
            f"it can be at most {min(n_train, n_hold)}."
        )
    # One adversary set for every synthetic set, so their risks are comparable.
    members, non_members = sample_adversary_set(n_train, n_hold, size, ctx.rng("mi_risk", "adversary set"))

    def attack(i: int, level: float) -> MembershipTest:
        return membership_inference_test(
            dcrs[i].training_to_syn[members],
            dcrs[i].holdout_to_syn[non_members],
            params.quantile_levels,
            ctx.rng("mi_risk", "bootstrap", i),
            confidence=level,
            resamples=params.bootstrap_resamples,
            threads=ctx.executor.threads,
            people=(people[0][members], people[1][non_members]) if (people := dcrs[i].people) is not None else None,
        )

    sets = worst_of_sets(ctx, params.confidence, lambda i, ds, level: (attack(i, level), i), lambda m: m[0].risk)
    assert sets.worst is not None  # every set has a risk
    test, worst = sets.worst
    dcr = dcrs[worst]
    interval, borrowed = sets.interval_noted(
        lambda m: (dcrs[m[1]].synthetic_name, Estimate(m[0].risk, m[0].risk_interval))
    )
    return MetricResult(
        value=test.risk,
        interval=interval,
        confidence=params.confidence,
        details=MiRiskDetails(
            worst_set=dcr.synthetic_name,
            adversary_set=AdversarySet(
                members=size,
                non_members=size,
                blind_guess_precision=0.5,
                guess="member when its distance to the closest synthetic record is at or below the threshold",
            ),
            no_leak_expectation=0.0,
            clipping="none: with no leakage every precision has expectation 0.5, so the risk's is 0; "
            "SURE's floor at 0.5 (or a clip at 0) would make it positive",
            per_set=[attack_row(dcrs[i].synthetic_name, t) for t, i in sets.per_set],
            bonferroni=bonferroni_note(params.confidence, len(dcrs)),
            gower=dcr.gower,
        ),
        charts=(roc_chart(test.roc, dcr.synthetic_name, test.auc),),
        notes=(borrowed,) if borrowed else (),
        baseline=0.0,
        baseline_label="a blind guess (precision 0.5 on the balanced adversary set): the risk's expectation "
        "under no leakage",
        **_sample(dcr.people, members, non_members),
    )


def _sample(
    people: tuple[np.ndarray, np.ndarray] | None, members: np.ndarray, non_members: np.ndarray
) -> dict[str, Any]:
    """The adversary set's size as the interval counts it: its records, or its people where an id column names
    them (the bootstrap resamples people, each half apart), so "about N would settle it" counts what to add."""
    from policycheck.core.stats import distinct_count

    if people is None:
        return {"sample_size": members.size + non_members.size}
    halves = distinct_count(people[0][members]) + distinct_count(people[1][non_members])
    return {"sample_size": int(halves), "sample_unit": "people"}


def roc_chart(roc: tuple[np.ndarray, np.ndarray], name: str, auc: float) -> dict[str, Any]:
    """ROC curve of the distance-threshold attack, thinned to at most ROC_POINTS points."""
    fpr, tpr = roc
    keep = _thin(fpr.size, ROC_POINTS)
    return {
        "kind": "line",
        "title": f"Membership attack on {name} (AUC {auc:.3f})",
        "x_label": "false-positive rate (holdout records guessed members)",
        "y_label": "true-positive rate (training records guessed members)",
        "series": [
            {"name": "attack", "x": fpr[keep].tolist(), "y": tpr[keep].tolist()},
            {"name": "blind guess", "x": [0.0, 1.0], "y": [0.0, 1.0]},
        ],
    }


def _thin(n: int, most: int) -> np.ndarray:
    """Evenly spaced indices, first and last included."""
    import numpy as np

    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).round().astype(int))
