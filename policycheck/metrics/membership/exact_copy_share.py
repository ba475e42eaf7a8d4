"""``exact_copy_share``: synthetic records identical to a training record, beyond chance (paper 002, sec. 3)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need, Resolution
from policycheck.metrics.combinators import BonferroniNote, Estimate, bonferroni_note, worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.membership.common import SURE, columns_used, membership_metric
from policycheck.metrics.membership.gower_dcr import GowerDcr, dcrs_in_set_order
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.release.model import Release

if TYPE_CHECKING:
    import numpy as np

METHOD = Method(
    definition="Share of synthetic records identical on every column used to a training record, minus the share "
    "identical to a holdout record (baseline: none, the raw share); exact interval from the discordant "
    "records: their share and McNemar's conditional one, Bonferroni-joined.",
    source="paper 002, sec. 3 (a DCR of 0 is a copy)",
    conventions=(
        Convention(
            topic="chance copies",
            peer=SURE,
            theirs="number_of_dcr_equal_to_zero: the count of synthetic records at DCR 0 to the training set (and "
            "apart, to the holdout set), neither set against the other",
            ours="minus the share at DCR 0 to the holdout set, which coarse data matches by chance",
            effect="exact_copy_share/holdout-baseline",
        ),
    ),
)


class ExactCopyShareParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns two records must agree on to be copies; all columns of the release when omitted."
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the interval.")
    baseline: Literal["holdout", "none"] = Field(
        "holdout",
        description=(
            "'holdout' (default): the value is the share of synthetic records copying a training record minus the "
            "share copying a holdout record (chance matches of common records); 'none': the raw share."
        ),
    )


class ExactCopySet(Details):
    """One synthetic set's copies of training and of holdout records."""

    synthetic: str = detail("Synthetic set")
    value: float = detail("Value", format="share", help="The rule's value for this set.")
    interval: tuple[float, float] = detail("Interval")
    share_copying_training: float = detail("Share copying a training record", format="share")
    share_copying_holdout: float = detail("Share copying a holdout record", format="share")
    excess_over_holdout: float = detail("Excess over the holdout's share", format="share")
    copies_of_training: int = detail("Copies of a training record", unit="synthetic records")
    copies_of_holdout: int = detail("Copies of a holdout record", unit="synthetic records")
    copies_of_training_only: int = detail("Copies of a training record only", unit="synthetic records")
    copies_of_holdout_only: int = detail("Copies of a holdout record only", unit="synthetic records")
    effective_records: float = detail(
        "Effective records", unit="records", help="Copies of the same real person counted as one cluster."
    )
    synthetic_records: int = detail("Synthetic records", unit="records")
    equal_size: str = detail("Sizes compared")


class CopyBaseline(Details):
    """What the value is measured against."""

    mode: Literal["holdout", "none"] = detail("Baseline")
    rule: str = detail("Value")


class ExactCopyShareDetails(Details):
    worst_set: str = detail("Worst synthetic set")
    per_set: list[ExactCopySet] = detail("Per synthetic set")
    baseline: CopyBaseline = detail("Baseline")
    bonferroni: BonferroniNote = detail("Several synthetic sets")
    gower: dict[str, Any] = detail("Gower convention", help="The distance's convention and its numbers.")


def exact_copy_resolution(params: ExactCopyShareParams, release: Release) -> Resolution:
    """The exact-copy share's interval at no leak, from the real records' chance matches.

    A synthetic record of a release without leakage is like a fresh real record: it copies a
    training record by chance as often as a holdout record does. The holdout's records stand in
    for it: each is counted as copying a training record, and another holdout record, when one is
    equal to it (row hashes); :func:`copy_resolution` turns the two into the width.
    """
    import numpy as np

    from policycheck.release.checks import row_hashes

    columns = columns_used(params, release)
    # NOTE: the family reads a holdout (its inputs), so the release has one here.
    training = row_hashes(release.original.frame[columns])
    holdout = row_hashes(release.holdout.frame[columns])  # type: ignore[union-attr]
    _, inverse, counts = np.unique(holdout, return_inverse=True, return_counts=True)
    return copy_resolution(params, release, np.isin(holdout, training), counts[inverse] > 1, "equal to", "copy")


def copy_resolution(
    params: ExactCopyShareParams,
    release: Release,
    copies_training: np.ndarray,
    copies_other_holdout: np.ndarray,
    near: str,
    copy: str,
) -> Resolution:
    """The copy share's interval at no leak, from which holdout records copy a training record and which another.

    With the holdout baseline, the interval rests on the records copying one set only (discordant,
    ``d`` of the ``n`` synthetic records); their share is estimated on the holdout: each holdout
    record copying a training record but no other holdout record, or the reverse. At half of them
    copying each set, the excess's interval reaches the upper end of
    :func:`policycheck.core.stats.paired_difference`. With ``baseline: none`` the no-leak value
    is the holdout's share of training copies, with its Clopper-Pearson width over ``n``. Clusters
    only widen it. ``near`` and ``copy`` word what a copy is for the basis: "equal to", "copy".
    """
    import numpy as np

    from policycheck.core import stats

    sizes = [ds.n_rows for ds in release.synthetic]
    n, level = min(sizes), stats.bonferroni(params.confidence, len(sizes))
    if params.baseline == "none":
        chance = float(np.mean(copies_training))
        upper = stats.clopper_pearson_share(chance, n, level)[1]
        return Resolution(
            chance,
            upper - chance,
            n,
            "synthetic records",
            f"Clopper-Pearson at the holdout's share of records {near} a training record "
            f"({chance:.3g}, the chance of a copy)",
            level,
        )
    discordant = float(np.mean(copies_training ^ copies_other_holdout))
    half = stats.paired_difference(discordant * n / 2, discordant * n / 2, n, level)[1]
    return Resolution(
        0.0,
        half,
        n,
        "synthetic records",
        f"the exact interval of the excess when {discordant:.3g} of the records {copy} one real set only, "
        "as the holdout's records do by chance",
        level,
    )


def measure_copies(dcr: GowerDcr, baseline: str, level: float, within: float = 0.0) -> ExactCopySet:
    """One set's copies (DCR at most ``within``, 0: identical) of training and holdout records, and the value with
    its interval at ``level``.

    With the holdout baseline, the exact interval of a difference of paired shares
    (:func:`policycheck.core.stats.paired_difference`: the same synthetic records are compared with
    both sets); with none, the raw share's Clopper-Pearson interval. Copies hanging on the same real
    people are one event, not many (as in ``dcr_share``).
    """
    import numpy as np

    from policycheck.core import stats

    n = int(dcr.syn_to_training.size)
    copies_train, copies_hold = dcr.syn_to_training <= within, dcr.syn_to_holdout <= within
    k_train, k_hold = int(np.sum(copies_train)), int(np.sum(copies_hold))
    only_train, only_hold = copies_train & ~copies_hold, copies_hold & ~copies_train
    clusters = dcr.clusters()
    if baseline == "none":
        effective = stats.effective_trials(copies_train, np.ones(n), clusters)
        value, interval = k_train / n, stats.clopper_pearson_share(k_train / n, effective, level)
    else:
        effective = stats.effective_trials(only_train, only_train | only_hold, clusters)
        value = (k_train - k_hold) / n
        interval = stats.paired_difference(int(only_train.sum()), int(only_hold.sum()), n, level, effective)
    return ExactCopySet(
        synthetic=dcr.synthetic_name,
        value=value,
        interval=interval,
        share_copying_training=k_train / n,
        share_copying_holdout=k_hold / n,
        excess_over_holdout=(k_train - k_hold) / n,
        copies_of_training=k_train,
        copies_of_holdout=k_hold,
        copies_of_training_only=int(only_train.sum()),
        copies_of_holdout_only=int(only_hold.sum()),
        effective_records=effective,
        synthetic_records=n,
        equal_size=dcr.equal_size_note(),
    )


@membership_metric(
    name="exact_copy_share",
    method=METHOD,
    params=ExactCopyShareParams,
    details=ExactCopyShareDetails,
    resolution=exact_copy_resolution,
    knowledge={Knowledge.SYNTHETIC},
    meaning=(
        "The share of synthetic records identical, on every column used, to a record of the training data. "
        "The same share against the holdout data shows how many such matches occur by chance for "
        "common records; copies far beyond it mean real records were released."
    ),
    remedy=(
        "Remove synthetic records that copy training records, and regenerate with a synthesizer that does not "
        "memorise its training data."
    ),
)
def exact_copy_share(ctx: EvaluationContext, params: ExactCopyShareParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of synthetic records identical to a training record (DCR 0), minus the holdout's share.

    Paper 002, sec. 3: a DCR of 0 to training is a released copy of a real
    record. On coarse data many synthetic records equal some real record by
    chance; the holdout (never seen by the synthesizer, same size as the
    training set used) shows how many. The value is the excess, or with
    ``baseline: none`` the raw share (see :func:`measure_copies`). With
    several synthetic sets the value is the largest.
    """
    return copies_result(ctx, params, needs, 0.0, ExactCopyShareDetails)


def copies_result(
    ctx: EvaluationContext,
    params: ExactCopyShareParams,
    needs: Mapping[Need, Any],
    within: float,
    details: Callable[..., ExactCopyShareDetails],
) -> MetricResult:
    """The copy share's result: copies at DCR ``within`` or less (0: identical), the worst synthetic set's value.

    Shared by ``exact_copy_share`` (``within`` 0) and ``near_copy_share``; ``details`` makes the
    metric's details from the fields they share.
    """

    dcrs = dcrs_in_set_order(needs)
    sets = worst_of_sets(
        ctx,
        params.confidence,
        lambda i, ds, level: (measure_copies(dcrs[i], params.baseline, level, within), dcrs[i]),
        lambda m: m[0].value,
    )
    assert sets.worst is not None  # every set has a value
    worst, dcr = sets.worst
    per_set = [row for row, _ in sets.per_set]
    names = [row.synthetic for row in per_set]
    interval, borrowed = sets.interval_noted(lambda m: (m[0].synthetic, Estimate(m[0].value, m[0].interval)))
    copies = "copies" if within == 0 else "near"
    chart = {
        "kind": "bar",
        "title": "Synthetic records identical to a real record"
        if within == 0
        else f"Synthetic records within Gower distance {within:g} of a real record",
        "x_label": "synthetic set",
        "y_label": "share of synthetic records",
        "series": [
            {"name": f"{copies} a training record", "x": names, "y": [row.share_copying_training for row in per_set]},
            {"name": f"{copies} a holdout record", "x": names, "y": [row.share_copying_holdout for row in per_set]},
        ],
    }
    rule = (
        "value = share copying a training record - share copying a holdout record"
        if params.baseline == "holdout"
        else "value = share copying a training record (baseline: none); the holdout's share is reported"
    )
    return MetricResult(
        value=worst.value,
        interval=interval,
        confidence=params.confidence,
        details=details(
            worst_set=dcr.synthetic_name,
            per_set=per_set,
            baseline=CopyBaseline(mode=params.baseline, rule=rule),
            bonferroni=bonferroni_note(params.confidence, len(per_set)),
            gower=dcr.gower,
        ),
        charts=(chart,),
        notes=(dcr.equal_size_note(), *([borrowed] if borrowed else [])),
        baseline=worst.share_copying_holdout,
        raw=worst.share_copying_training if params.baseline == "holdout" else None,
        baseline_label=f"the share of synthetic records {'identical to' if within == 0 else 'near'} a holdout record "
        "(real people the synthesizer never saw, as many as the training records compared): matches by chance",
        sample_size=int(dcr.syn_to_training.size),
    )
