"""``dcr_share``: the share of synthetic records closer to a training than to a holdout record (paper 002, sec. 3)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field

from policycheck.metrics.base import EvaluationContext, Knowledge, MetricResult, Need, Resolution
from policycheck.metrics.combinators import BonferroniNote, Estimate, bonferroni_note, worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.membership.common import SURE, membership_metric
from policycheck.metrics.membership.gower_dcr import GowerDcr, dcrs_in_set_order
from policycheck.metrics.registry import Convention, Method, Params
from policycheck.release.model import Release

if TYPE_CHECKING:
    import numpy as np

    from policycheck.methods.dcr_share import DcrShareCounts

METHOD = Method(
    definition="Among synthetic records not equally close to both, the share whose closest record (Gower DCR, one "
    "range per numeric column over every set) is a training rather than a holdout record; 0.5 under no leakage. "
    "Clopper-Pearson interval over the effective number of untied records, synthetic records with the same "
    "nearest real record counted as one cluster, and no more records than the share's spread over random "
    "relabellings of the real records into training and holdout (its exact null distribution) allows.",
    source="paper 002, sec. 3 (DCR share) and sec. 5 (Gower's distance)",
    conventions=(
        Convention(
            topic="ties",
            peer=f"paper 002 sec. 3, {SURE}, SDMetrics 0.32",
            theirs="closer records over all synthetic records, a tie counted as not closer: the no-leak line is "
            "(1 - ties) / 2",
            ours="closer over closer + farther: 0.5 at any tie rate; the strict share is in the details",
            effect="dcr_share/ties",
        ),
        Convention(
            topic="numeric ranges",
            peer=SURE,
            theirs="each call fits R over its own two frames (synthetic and training, then synthetic and holdout), "
            "so the two DCRs compared have different scales",
            ours="one R per column over training, holdout and every synthetic set",
            effect="dcr_share/numeric-ranges",
        ),
    ),
)


class DcrShareParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns the Gower distance uses; all columns of the release when omitted."
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Clopper-Pearson interval.")


class DcrShareSet(Details):
    """One synthetic set's DCR share and the counts behind it."""

    synthetic: str = detail("Synthetic set")
    share: float = detail("Share closer to training", format="share", help="Among untied synthetic records.")
    interval: tuple[float, float] = detail("Interval", help="Clopper-Pearson at the Bonferroni level.")
    closer_to_training: int = detail("Closer to a training record", unit="synthetic records")
    ties: int = detail("As close to both", unit="synthetic records")
    closer_to_holdout: int = detail("Closer to a holdout record", unit="synthetic records")
    synthetic_records: int = detail("Synthetic records", unit="records")
    effective_records: float = detail(
        "Effective records",
        unit="records",
        help="Untied records, clusters sharing a nearest real record (or its person, where an id column names "
        "people) as one, or fewer where the share's spread under random relabelling of the real records is wider.",
    )
    relabelling_sd: float | None = detail(
        "Spread under relabelling",
        help="Standard deviation of the share over random relabellings of the real records into training and "
        "holdout: its exact spread under no leakage. None where not drawn (see the note).",
    )
    relabelling_p: float | None = detail(
        "Relabelling p-value",
        format="share",
        help="Share of relabellings with a DCR share at least the observed one: the exact test of no leakage.",
    )
    clusters: int = detail(
        "Nearest real records among the untied",
        unit="records",
        help="Their people, where an id column names people: synthetic records near a man's different years "
        "hang on one man.",
    )
    strict_share: float = detail("Strict share (ties as not closer)", format="share", help="The paper's share.")
    half_ties_share: float = detail("Share with ties split evenly", format="share")
    exact_copies_of_training: int = detail("Copies of a training record", unit="synthetic records")
    exact_copies_of_holdout: int = detail("Copies of a holdout record", unit="synthetic records")
    dcr_to_training_quantiles: dict[str, float] = detail("Quantiles of the DCR to training")
    dcr_to_holdout_quantiles: dict[str, float] = detail("Quantiles of the DCR to holdout")
    equal_size: str = detail("Sizes compared")


class DcrShareDetails(Details):
    ideal: float = detail("Share under no leakage", format="share")
    ties: str = detail("Ties")
    interval_method: str = detail("How the interval is formed")
    worst_set: str = detail("Worst synthetic set")
    per_set: list[DcrShareSet] = detail("Per synthetic set")
    bonferroni: BonferroniNote = detail("Several synthetic sets")
    gower: dict[str, Any] = detail("Gower convention", help="The distance's convention and its numbers.")


def dcr_share_resolution(params: DcrShareParams, release: Release) -> Resolution:
    """The DCR share's interval at no leak: Clopper-Pearson at a share of 0.5 over the smallest set's records.

    Optimistic: ties and synthetic records sharing a nearest real record (clusters) leave fewer
    effective records, so the real interval is at least this wide.
    """
    from policycheck.core import stats

    sizes = [ds.n_rows for ds in release.synthetic]
    n, level = min(sizes), stats.bonferroni(params.confidence, len(sizes))
    upper = stats.clopper_pearson_share(0.5, n, level)[1]
    return Resolution(
        0.5,
        upper - 0.5,
        n,
        "synthetic records",
        "Clopper-Pearson at a share of 0.5 as if no synthetic "
        "record were tied or shared its nearest real record; ties and clusters only widen it",
        level,
        width_is="at least",
    )


def measure_share(dcr: GowerDcr, level: float, rng: np.random.Generator) -> tuple[DcrShareSet, DcrShareCounts]:
    """One set's share among untied records, with its clustered Clopper-Pearson interval at ``level``.

    The effective number of records is the smaller of two: clusters of synthetic records sharing a
    nearest real record (Kish's design effect), and ``0.25 / var``, the binomial count at a share of 0.5
    with the share's variance over random relabellings of the real records, its exact null spread
    (:mod:`policycheck.methods.dcr_relabelling`, drawn with ``rng``).
    """
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.dcr_share import dcr_quantiles, dcr_share_counts

    counts = dcr_share_counts(dcr.syn_to_training, dcr.syn_to_holdout)
    sets = dcr.nearest_sets()
    # Drawn, the spread over relabellings (of people, where the data name them) bounds the clusters' count
    # exactly; not drawn, a panel's synthetic records hang on the nearest record's person.
    clusters = dcr.clusters(by_person=sets is None)
    closer = dcr.syn_to_training < dcr.syn_to_holdout
    untied = dcr.syn_to_training != dcr.syn_to_holdout
    # Synthetic records hanging on the same real person are one event, not many.
    effective = stats.effective_trials(closer, untied, clusters)
    relabelling_sd = relabelling_p = None
    if sets is not None:
        from policycheck.methods.dcr_relabelling import relabelled_shares

        null = relabelled_shares(sets, dcr.pool_training, rng, people=dcr.pool_people)
        relabelling_sd = float(null.std())
        relabelling_p = float((1 + np.sum(null >= counts.share)) / (1 + null.size))
        if relabelling_sd > 0:  # ties turning into trials and back widen the spread beyond the clusters'
            effective = min(effective, 0.25 / relabelling_sd**2)
    row = DcrShareSet(
        synthetic=dcr.synthetic_name,
        share=counts.share,
        interval=stats.clopper_pearson_share(counts.share, effective, level),
        closer_to_training=counts.closer_to_training,
        ties=counts.ties,
        closer_to_holdout=counts.closer_to_holdout,
        synthetic_records=counts.total,
        effective_records=effective,
        clusters=stats.distinct_count(clusters[untied]),
        relabelling_sd=relabelling_sd,
        relabelling_p=relabelling_p,
        strict_share=counts.strict_share,
        half_ties_share=counts.half_ties_share,
        exact_copies_of_training=int(np.sum(dcr.syn_to_training == 0)),
        exact_copies_of_holdout=int(np.sum(dcr.syn_to_holdout == 0)),
        dcr_to_training_quantiles=dcr_quantiles(dcr.syn_to_training),
        dcr_to_holdout_quantiles=dcr_quantiles(dcr.syn_to_holdout),
        equal_size=dcr.equal_size_note(),
    )
    return row, counts


@membership_metric(
    name="dcr_share",
    method=METHOD,
    params=DcrShareParams,
    details=DcrShareDetails,
    resolution=dcr_share_resolution,
    knowledge={Knowledge.SYNTHETIC},
    meaning=(
        "The share of synthetic records that are closer to a training record than to any holdout record. "
        "About 0.5 means the synthetic data resembles people who were used no more than people who were not; "
        "well above 0.5 means it copies or closely imitates the training records."
    ),
    remedy=(
        "Regenerate with a synthesizer that generalises more (fewer training epochs, more noise or a differential "
        "privacy budget), and remove synthetic records that copy training records."
    ),
)
def dcr_share(ctx: EvaluationContext, params: DcrShareParams, needs: Mapping[Need, Any]) -> MetricResult:
    """Share of untied synthetic records closer to a training record than to a holdout record.

    Paper 002, sec. 3, with ties left out (see :mod:`policycheck.methods.dcr_share`):
    ``closer / (closer + farther)``, 0.5 under no leakage, with an exact
    Clopper-Pearson interval over the untied records. With several synthetic
    sets the value is the largest share.
    """
    dcrs = dcrs_in_set_order(needs)

    def measure(i: int, ds: Any, level: float) -> tuple[DcrShareSet, DcrShareCounts, GowerDcr]:
        return (*measure_share(dcrs[i], level, ctx.rng("dcr_share", "relabelling", i)), dcrs[i])

    sets = worst_of_sets(ctx, params.confidence, measure, lambda m: m[0].share)
    assert sets.worst is not None  # every set has a share
    worst, counts, dcr = sets.worst
    per_set = [row for row, _, _ in sets.per_set]
    interval, borrowed = sets.interval_noted(lambda m: (m[0].synthetic, Estimate(m[0].share, m[0].interval)))
    notes = [dcr.equal_size_note(), *([borrowed] if borrowed else [])]
    if counts.ties:
        notes.append(
            f"{counts.ties} of {counts.total} synthetic records are exactly as close to a holdout record as to a "
            f"training record; a tie says nothing about membership, so the share is taken over the other "
            f"{counts.untied} (the strict share of the paper, ties counted as not closer, is "
            f"{counts.strict_share:.3f})."
        )
    undrawn = [row.synthetic for row in per_set if row.relabelling_sd is None]
    if undrawn:
        from policycheck.methods.dcr_relabelling import MAX_TERMS

        notes.append(
            f"The share's spread under random relabelling of the real records was not drawn for {', '.join(undrawn)}: "
            f"more than {MAX_TERMS:,} Gower terms (distinct synthetic x distinct real rows x columns). Its interval "
            "counts clusters of "
            "a shared nearest real record only, which is exact where each synthetic record has one nearest real "
            "record and narrower where many are equally near."
        )
    return MetricResult(
        value=worst.share,
        interval=interval,
        confidence=params.confidence,
        details=DcrShareDetails(
            ideal=0.5,
            ties="left out: the share is closer / (closer + farther) among untied synthetic records; "
            "0.5 is its expectation under no leakage whatever the tie rate",
            interval_method="Clopper-Pearson over the effective number of untied records (Korn and Graubard's "
            "interval): synthetic records with the same nearest real record form one cluster (Kish design effect), "
            "and no more records are counted than the share's spread over 1,000 random relabellings of the real "
            "records into training and holdout allows",
            worst_set=dcr.synthetic_name,
            per_set=per_set,
            bonferroni=bonferroni_note(params.confidence, len(per_set)),
            gower=dcr.gower,
        ),
        charts=(dcr_histogram(dcr),),
        notes=tuple(notes),
        baseline=0.5,
        baseline_label="the expected share under no leakage: an untied synthetic record is as likely to sit "
        "closer to a training as to a holdout record",
        sample_size=counts.untied,
    )


def dcr_histogram(dcr: GowerDcr, bins: int = 30) -> dict[str, Any]:
    """Overlaid histograms of the DCR to training and to holdout on shared bins."""
    import numpy as np

    top = float(max(dcr.syn_to_training.max(), dcr.syn_to_holdout.max(), 1e-12))
    edges = np.linspace(0.0, top, bins + 1)

    def counts(dcr_values: np.ndarray) -> list[int]:
        found: list[int] = np.histogram(dcr_values, edges)[0].tolist()
        return found

    return {
        "kind": "histogram",
        "title": f"Distance to closest record of {dcr.synthetic_name}",
        "x_label": "Gower distance to the closest real record",
        "series": [
            {"name": "to training", "edges": edges.tolist(), "counts": counts(dcr.syn_to_training)},
            {"name": "to holdout", "edges": edges.tolist(), "counts": counts(dcr.syn_to_holdout)},
        ],
    }
