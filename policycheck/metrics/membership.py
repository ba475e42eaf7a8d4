"""Membership family: DCR share, membership-inference risk and exact copies (paper 002).

Every rule of the family reads one shared intermediate, ``gower_dcr``: per
synthetic set, the exact Gower distance to closest record (DCR) in four
directions (synthetic -> training, synthetic -> holdout, training ->
synthetic, holdout -> synthetic), computed once and shared by all rules.

With several synthetic sets a rule reports the worst set; each set's interval
is then computed at the Bonferroni level (:func:`policycheck.core.stats.bonferroni`)
and the rule's interval is that of the worst
(:func:`policycheck.core.stats.worst_interval`). Missing values follow the pinned
Gower convention (:mod:`policycheck.methods.gower`): a missing value is a
category of its own, two missing values agree, a missing number against a
present one is a full mismatch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from policycheck.methods import cost_model
from policycheck.methods.membership_test import DEFAULT_LEVELS, membership_inference_test, sample_adversary_set
from policycheck.metrics.base import EvaluationContext, EvaluationError, Knowledge, MetricResult, Need, Resolution
from policycheck.metrics.registry import Convention, Method, Params, imported_where_used, intermediate, metric
from policycheck.release.model import Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np


REFERENCES = (
    "Clearbox AI, Privacy evaluation (Clearbox Synthetic Kit documentation): distance to closest record, "
    "DCR share and membership inference test, with Gower's distance (paper 002).",
)

#: Most points drawn on a ROC chart; the curve is thinned evenly beyond it.
ROC_POINTS = 201


# The methods section (registry.Method): definition, source, and where we differ from SURE
# (clearbox-sure 0.2.16, paper 002's own implementation; peer survey sec. 2.3, 6.6).
SURE = "SURE (clearbox-sure 0.2.16)"
DCR_SHARE_METHOD = Method(
    definition="Among synthetic records not equally close to both, the share whose closest record (Gower DCR, one "
    "range per numeric column over every set) is a training rather than a holdout record; 0.5 under no leakage. "
    "Clopper-Pearson interval over the effective number of untied records, synthetic records with the same "
    "nearest real record counted as one cluster.",
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
MI_RISK_METHOD = Method(
    definition="(mean precision - 0.5) x 2 of a threshold attack on a balanced adversary set of training and holdout "
    "records: a record whose DCR to the synthetic set is at or below a threshold (its 0.5, 0.25, 0.2, 0.01 "
    "quantiles) is guessed a member. Not clipped: 0 is its no-leak expectation. Stratified bootstrap interval.",
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
EXACT_COPY_METHOD = Method(
    definition="Share of synthetic records identical on every column used to a training record, minus the share "
    "identical to a holdout record (baseline: none, the raw share); exact conditional interval on the discordant "
    "records.",
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


@dataclass(frozen=True)
class GowerDcr:
    """Exact Gower distances to closest record for one synthetic set.

    Attributes
    ----------
    syn_to_training, syn_to_holdout : numpy.ndarray
        Per synthetic record: its DCR to the training (original) set and to
        the holdout set, both of the same size (see ``share_subsample``).
    training_to_syn, holdout_to_syn : numpy.ndarray
        Per real record (all of them): its DCR to the synthetic set.
    syn_to_training_index, syn_to_holdout_index, training_to_syn_index, holdout_to_syn_index : numpy.ndarray
        Row of the closest record in the other set's full frame (smallest row
        among ties).
    convention : str
        The Gower convention, in words.
    gower : dict
        The convention with its numbers (ranges, orders, summation order).
    share_subsample : dict or None
        When training and holdout sizes differ: the larger set's role, its
        size and the sorted rows of the seeded equal-size sample that the
        synthetic -> real DCRs were computed against.
    synthetic_name : str
        Name of the synthetic set.
    """

    syn_to_training: np.ndarray
    syn_to_holdout: np.ndarray
    training_to_syn: np.ndarray
    holdout_to_syn: np.ndarray
    syn_to_training_index: np.ndarray
    syn_to_holdout_index: np.ndarray
    training_to_syn_index: np.ndarray
    holdout_to_syn_index: np.ndarray
    convention: str
    gower: dict[str, Any]
    share_subsample: dict[str, Any] | None
    synthetic_name: str

    def equal_size_note(self) -> str:
        """One sentence for the report on the sizes the share compares."""
        n = len(self.training_to_syn)
        if self.share_subsample is None:
            return (
                f"Training and holdout both have {n} records; a share is only meaningful with "
                "equal-size training and holdout sets."
            )
        s = self.share_subsample
        return (
            f"The {s['role']} set has {s['size']} records and the other {s['sample_size']}; the synthetic "
            f"records were compared with a seeded sample of {s['sample_size']} {s['role']} records, because "
            "a share is only meaningful with equal-size training and holdout sets."
        )


@intermediate(
    name="gower_dcr",
    description=(
        "Exact Gower distance to closest record of one synthetic set: synthetic to training, synthetic to "
        "holdout, training to synthetic and holdout to synthetic."
    ),
    inputs={"original", "holdout", "synthetic"},
    estimate=cost_model.gower_dcr,
)
def gower_dcr(ctx: EvaluationContext, synthetic: int, columns: tuple[str, ...] | None = None) -> GowerDcr:
    """Compute the four DCR directions of synthetic set ``synthetic`` (paper 002, sec. 3-5).

    Parameters
    ----------
    ctx : EvaluationContext
        The release, executor, seed and progress callback.
    synthetic : int
        Index of the synthetic set.
    columns : tuple of str, optional
        Features to use; all columns of the release by default.

    Returns
    -------
    GowerDcr
    """
    import numpy as np

    from policycheck.methods.dcr_share import equal_size_subsample
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.nearest_neighbours import SearchJob, closest_records

    release = ctx.release
    if release.holdout is None:
        raise EvaluationError(
            "The membership metrics need a holdout set of real records that were not used for training."
        )
    features = list(columns) if columns else release.columns
    # A streamed set gives its columns one at a time: the encoding is fitted on the same values, never the whole set.
    frames = [release.original.frame, release.holdout.frame, *(d.column_reader() for d in release.synthetic)]
    syn = release.synthetic[synthetic]
    for dataset in (release.original, release.holdout, syn):
        if dataset.n_rows == 0:
            raise EvaluationError(
                f"The {dataset.role} set {dataset.name!r} has no records, so no distance can be computed."
            )
    # One encoding (ranges over every set) for all sets and directions, so all DCRs share one scale.
    enc = fit_gower(frames, release.column_types, release.orders, features)
    # Encoded where the executor's workers read them: the searches' tasks share these arrays.
    x_train, x_hold = (enc.encode(f, ctx.executor.empty) for f in (release.original.frame, release.holdout.frame))
    # The subsample does not depend on the synthetic set: every set faces the same real records.
    sub = equal_size_subsample(len(x_train), len(x_hold), ctx.rng("gower_dcr", "equal-size subsample"))
    rows_train, rows_hold = np.arange(len(x_train)), np.arange(len(x_hold))
    # The real records the synthetic ones are searched against: the whole sets (the very arrays of the
    # other direction, so the executor shares each once) unless one set is subsampled to the other's size.
    against_train, against_hold = x_train, x_hold
    if sub is not None:
        role, rows = sub
        if role == "original":
            rows_train, against_train = rows, x_train[rows]
        else:
            rows_hold, against_hold = rows, x_hold[rows]
    label = f"gower_dcr({syn.name})"

    def progress(done: int, total: int) -> None:
        ctx.progress(label, done, total)

    from policycheck.methods import streamed_dcr

    if ctx.executor.sees_local_files and streamed_dcr.streams(syn):
        # A large Parquet set: each worker reads, encodes and searches its own row groups (same numbers).
        # Workers of a remote Dask cluster need not see this machine's files, so they get the set in memory.
        from policycheck.release.load import coerce_like_loader

        coerce = partial(
            coerce_like_loader,
            syn.path,
            {c: release.column_types[c] for c in enc.features},
            release.roles,
            release.orders,
            release.formats,
        )
        (to_train, to_hold), (train_to, hold_to) = streamed_dcr.streamed_closest_records(
            streamed_dcr.parquet_shards(syn.path, streamed_dcr.SHARD_ROWS),
            enc,
            [against_train, against_hold],
            ctx.executor,
            progress,
            coerce=coerce,
            targets=[x_train, x_hold],
        )
    else:
        x_syn = enc.encode(syn.frame, ctx.executor.empty)
        jobs = [
            SearchJob(x_syn, against_train),
            SearchJob(x_syn, against_hold),
            SearchJob(x_train, x_syn),
            SearchJob(x_hold, x_syn),
        ]
        to_train, to_hold, train_to, hold_to = closest_records(jobs, enc.kinds, ctx.executor, progress)
    share_subsample = None
    if sub is not None:
        role, rows = sub
        share_subsample = {
            "role": role,
            "size": int(len(x_train) if role == "original" else len(x_hold)),
            "sample_size": int(rows.size),
            "rows": rows,
        }
    return GowerDcr(
        syn_to_training=to_train.distance,
        syn_to_holdout=to_hold.distance,
        training_to_syn=train_to.distance,
        holdout_to_syn=hold_to.distance,
        syn_to_training_index=rows_train[to_train.index],
        syn_to_holdout_index=rows_hold[to_hold.index],
        training_to_syn_index=train_to.index,
        holdout_to_syn_index=hold_to.index,
        convention=enc.describe()["convention"],
        gower=enc.describe(),
        share_subsample=share_subsample,
        synthetic_name=syn.name,
    )


class DcrShareParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns the Gower distance uses; all columns of the release when omitted."
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the Clopper-Pearson interval.")


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


def dcr_needs(params: Any, release: Release) -> list[Need]:
    """One ``gower_dcr`` need per synthetic set; ``columns`` only when a rule restricts them.

    Every rule reading the DCRs (other families' too) builds its needs here,
    so equal requests are equal Needs and share one computation.
    """
    extra: dict[str, Any] = {}
    if params.columns:
        wanted = set(params.columns)
        extra["columns"] = tuple(c for c in release.columns if c in wanted)
    return [Need.of("gower_dcr", synthetic=i, **extra) for i in range(len(release.synthetic))]


def dcrs_in_set_order(needs: Mapping[Need, Any]) -> list[GowerDcr]:
    """The shared DCRs of :func:`dcr_needs`, in synthetic-set order."""
    return [needs[n] for n in sorted(needs, key=lambda n: n.kwargs["synthetic"])]


def _bonferroni(confidence: float, sets: int) -> dict[str, Any]:
    """The level of each set's interval, so that the worst set's holds at ``confidence``."""
    from policycheck.core import stats

    return {
        "alternatives": sets,
        "level": stats.bonferroni(confidence, sets),
        "rule": f"each of the {sets} synthetic sets' intervals at 1 - (1 - {confidence}) / {sets} (Bonferroni); "
        "the rule's interval runs from the largest lower end to the largest upper end",
    }


# ---------------------------------------------------------------- resolution before computing (issue 28)


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


def exact_copy_resolution(params: ExactCopyShareParams, release: Release) -> Resolution:
    """The exact-copy share's interval at no leak, from the real records' chance matches.

    A synthetic record of a release without leakage is like a fresh real record: it copies a
    training record by chance as often as a holdout record does. With the holdout baseline, the
    interval rests on the records copying one set only (discordant, ``d`` of the ``n`` synthetic
    records); their share is estimated on the holdout: each holdout record equal to a training
    record but to no other holdout record, or the reverse. At a share of 0.5 among ``d``, the
    excess's interval reaches ``d / n (2 u - 1)`` with ``u`` the Clopper-Pearson upper end
    (:func:`policycheck.core.stats.paired_difference`). With ``baseline: none`` the no-leak value is the
    holdout's share of training copies, with its Clopper-Pearson width over ``n``. Clusters only widen it.
    """
    import numpy as np

    from policycheck.core import stats
    from policycheck.release.checks import row_hashes

    columns = [c for c in release.columns if not params.columns or c in params.columns]
    sizes = [ds.n_rows for ds in release.synthetic]
    n, level = min(sizes), stats.bonferroni(params.confidence, len(sizes))
    # NOTE: the family reads a holdout (its inputs), so the release has one here.
    training = row_hashes(release.original.frame[columns])
    holdout = row_hashes(release.holdout.frame[columns])  # type: ignore[union-attr]
    copies_training = np.isin(holdout, training)
    if params.baseline == "none":
        chance = float(copies_training.mean())
        upper = stats.clopper_pearson_share(chance, n, level)[1]
        return Resolution(
            chance,
            upper - chance,
            n,
            "synthetic records",
            f"Clopper-Pearson at the holdout's share "
            f"of records equal to a training record ({chance:.3g}, the chance of a copy)",
            level,
        )
    _, inverse, counts = np.unique(holdout, return_inverse=True, return_counts=True)
    copies_other_holdout = counts[inverse] > 1
    discordant = float(np.mean(copies_training ^ copies_other_holdout))
    d = discordant * n
    half = 0.0 if d <= 0 else d / n * (2 * stats.clopper_pearson_share(0.5, d, level)[1] - 1)
    return Resolution(
        0.0,
        half,
        n,
        "synthetic records",
        f"the exact interval of the excess when {discordant:.3g} of "
        "the records copy one real set only, as the holdout's records do by chance",
        level,
    )


# The family's metrics share their data, the DCRs they read and the value range.
membership_metric = partial(
    metric,
    family="membership",
    inputs={"original", "holdout", "synthetic"},
    value_range=(0.0, 1.0),
    column_params=("columns",),
    needs=dcr_needs,
    references=REFERENCES,
)


@membership_metric(
    name="dcr_share",
    method=DCR_SHARE_METHOD,
    params=DcrShareParams,
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
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.dcr_share import dcr_quantiles, dcr_share_counts, nearest_real_record

    sets = dcrs_in_set_order(needs)
    bonferroni = _bonferroni(params.confidence, len(sets))
    per_set, shares = [], []
    for dcr in sets:
        counts = dcr_share_counts(dcr.syn_to_training, dcr.syn_to_holdout)
        clusters = nearest_real_record(
            dcr.syn_to_training, dcr.syn_to_holdout, dcr.syn_to_training_index, dcr.syn_to_holdout_index
        )
        closer = dcr.syn_to_training < dcr.syn_to_holdout
        untied = dcr.syn_to_training != dcr.syn_to_holdout
        effective = stats.effective_trials(closer, untied, clusters)
        interval = stats.clopper_pearson_share(counts.share, effective, bonferroni["level"])
        shares.append((counts.share, interval, dcr, counts))
        per_set.append(
            {
                "synthetic": dcr.synthetic_name,
                "share": counts.share,
                "interval": list(interval),
                "closer_to_training": counts.closer_to_training,
                "ties": counts.ties,
                "closer_to_holdout": counts.closer_to_holdout,
                "synthetic_records": counts.total,
                "effective_records": effective,
                "clusters": int(np.unique(clusters[untied]).size),
                "strict_share": counts.strict_share,
                "half_ties_share": counts.half_ties_share,
                "exact_copies_of_training": int(np.sum(dcr.syn_to_training == 0)),
                "exact_copies_of_holdout": int(np.sum(dcr.syn_to_holdout == 0)),
                "dcr_to_training_quantiles": dcr_quantiles(dcr.syn_to_training),
                "dcr_to_holdout_quantiles": dcr_quantiles(dcr.syn_to_holdout),
                "equal_size": dcr.equal_size_note(),
            }
        )
    worst = int(np.argmax([s for s, _, _, _ in shares]))
    value, _, dcr, counts = shares[worst]
    notes = [dcr.equal_size_note()]
    if counts.ties:
        notes.append(
            f"{counts.ties} of {counts.total} synthetic records are exactly as close to a holdout record as to a "
            f"training record; a tie says nothing about membership, so the share is taken over the other "
            f"{counts.untied} (the strict share of the paper, ties counted as not closer, is "
            f"{counts.strict_share:.3f})."
        )
    return MetricResult(
        value=value,
        interval=stats.worst_interval([tuple(p["interval"]) for p in per_set]),
        confidence=params.confidence,
        details={
            "ideal": 0.5,
            "ties": "left out: the share is closer / (closer + farther) among untied synthetic records; "
            "0.5 is its expectation under no leakage whatever the tie rate",
            "interval_method": "Clopper-Pearson over the effective number of untied records: synthetic records "
            "with the same nearest real record form one cluster (Kish design effect, Korn and Graubard's interval)",
            "worst_set": dcr.synthetic_name,
            "per_set": per_set,
            "bonferroni": bonferroni,
            "gower": dcr.gower,
        },
        charts=(_dcr_histogram(dcr),),
        notes=tuple(notes),
        baseline=0.5,
        baseline_label="the expected share under no leakage: an untied synthetic record is as likely to sit "
        "closer to a training as to a holdout record",
        sample_size=counts.untied,
    )


@membership_metric(
    name="mi_risk",
    method=MI_RISK_METHOD,
    params=MiRiskParams,
    resolution=mi_risk_resolution,
    # Not clipped at 0: a negative risk is an attack worse than a blind guess.
    value_range=(-1.0, 1.0),
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS},
    meaning=(
        "How much better than a coin flip an attacker who holds a person's record can tell, from the synthetic "
        "data alone, whether that person was in the training data: 0 is no better than guessing, 1 is always "
        "right. Below 0.2 is commonly read as a very low risk."
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
    import numpy as np

    from policycheck.core import stats

    sets = dcrs_in_set_order(needs)
    n_train, n_hold = sets[0].training_to_syn.size, sets[0].holdout_to_syn.size
    size = params.adversary_size or min(n_train, n_hold)
    if size > min(n_train, n_hold):
        raise EvaluationError(
            f"adversary_size is {size}, but the training set has {n_train} and the holdout set {n_hold} records; "
            f"it can be at most {min(n_train, n_hold)}."
        )
    # One adversary set for every synthetic set, so their risks are comparable.
    members, non_members = sample_adversary_set(n_train, n_hold, size, ctx.rng("mi_risk", "adversary set"))
    bonferroni = _bonferroni(params.confidence, len(sets))
    per_set, tests = [], []
    for i, dcr in enumerate(sets):
        test = membership_inference_test(
            dcr.training_to_syn[members],
            dcr.holdout_to_syn[non_members],
            params.quantile_levels,
            ctx.rng("mi_risk", "bootstrap", i),
            confidence=bonferroni["level"],
            resamples=params.bootstrap_resamples,
            threads=ctx.executor.workers,
        )
        tests.append((test, dcr))
        per_set.append(
            {
                "synthetic": dcr.synthetic_name,
                "mi_risk": test.risk,
                "interval": list(test.risk_interval),
                "auc": test.auc,
                "mean_precision": float(np.mean(test.precision)),
                "thresholds": [
                    {
                        "quantile_level": float(level),
                        "distance": float(t),
                        "guessed_members": int(g),
                        "true_members": int(tp),
                        "precision": float(pr),
                        "precision_interval": list(pi),
                        "recall": float(rc),
                        "recall_interval": list(ri),
                    }
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
                ],
            }
        )
    worst = int(np.argmax([t.risk for t, _ in tests]))
    test, dcr = tests[worst]
    return MetricResult(
        value=test.risk,
        interval=stats.worst_interval([t.risk_interval for t, _ in tests]),
        confidence=params.confidence,
        details={
            "worst_set": dcr.synthetic_name,
            "adversary_set": {
                "members": size,
                "non_members": size,
                "blind_guess_precision": 0.5,
                "guess": "member when its distance to the closest synthetic record is at or below the threshold",
            },
            "no_leak_expectation": 0.0,
            "clipping": "none: with no leakage every precision has expectation 0.5, so the risk's is 0; "
            "SURE's floor at 0.5 (or a clip at 0) would make it positive",
            "per_set": per_set,
            "bonferroni": bonferroni,
            "gower": dcr.gower,
        },
        charts=(_roc_chart(test.roc, dcr.synthetic_name, test.auc),),
        baseline=0.0,
        baseline_label="a blind guess (precision 0.5 on the balanced adversary set): the risk's expectation "
        "under no leakage",
        sample_size=2 * size,
    )


@membership_metric(
    name="exact_copy_share",
    method=EXACT_COPY_METHOD,
    params=ExactCopyShareParams,
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
    training set used) shows how many. The value is the excess, with the
    exact interval of a difference of paired shares
    (:func:`policycheck.core.stats.paired_difference`; the same synthetic records
    are compared with both sets), or with ``baseline: none`` the raw share
    with its Clopper-Pearson interval; copies of the same real record
    count as one cluster, as in :func:`dcr_share`. With several synthetic sets the value
    is the largest.
    """
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.dcr_share import nearest_real_record

    sets = dcrs_in_set_order(needs)
    bonferroni = _bonferroni(params.confidence, len(sets))
    level = bonferroni["level"]
    per_set, results = [], []
    for dcr in sets:
        n = int(dcr.syn_to_training.size)
        copies_train, copies_hold = dcr.syn_to_training == 0, dcr.syn_to_holdout == 0
        k_train, k_hold = int(np.sum(copies_train)), int(np.sum(copies_hold))
        only_train, only_hold = copies_train & ~copies_hold, copies_hold & ~copies_train
        # Copies hanging on the same real people are one event, not many (see dcr_share).
        clusters = nearest_real_record(
            dcr.syn_to_training, dcr.syn_to_holdout, dcr.syn_to_training_index, dcr.syn_to_holdout_index
        )
        if params.baseline == "none":
            effective = stats.effective_trials(copies_train, np.ones(n), clusters)
            value, interval = k_train / n, stats.clopper_pearson_share(k_train / n, effective, level)
        else:
            effective = stats.effective_trials(only_train, only_train | only_hold, clusters)
            value = (k_train - k_hold) / n
            interval = stats.paired_difference(int(only_train.sum()), int(only_hold.sum()), n, level, effective)
        only_train, only_hold = int(only_train.sum()), int(only_hold.sum())
        results.append((value, dcr, k_train / n, k_hold / n))
        per_set.append(
            {
                "synthetic": dcr.synthetic_name,
                "value": value,
                "interval": list(interval),
                "share_copying_training": k_train / n,
                "share_copying_holdout": k_hold / n,
                "excess_over_holdout": (k_train - k_hold) / n,
                "copies_of_training": k_train,
                "copies_of_holdout": k_hold,
                "copies_of_training_only": only_train,
                "copies_of_holdout_only": only_hold,
                "effective_records": effective,
                "synthetic_records": n,
                "equal_size": dcr.equal_size_note(),
            }
        )
    worst = int(np.argmax([v for v, _, _, _ in results]))
    value, dcr, raw, holdout_share = results[worst]
    names = [p["synthetic"] for p in per_set]
    chart = {
        "kind": "bar",
        "title": "Synthetic records identical to a real record",
        "x_label": "synthetic set",
        "y_label": "share of synthetic records",
        "series": [
            {"name": "copies a training record", "x": names, "y": [p["share_copying_training"] for p in per_set]},
            {"name": "copies a holdout record", "x": names, "y": [p["share_copying_holdout"] for p in per_set]},
        ],
    }
    rule = (
        "value = share copying a training record - share copying a holdout record"
        if params.baseline == "holdout"
        else "value = share copying a training record (baseline: none); the holdout's share is reported"
    )
    return MetricResult(
        value=value,
        interval=stats.worst_interval([tuple(p["interval"]) for p in per_set]),
        confidence=params.confidence,
        details={
            "worst_set": dcr.synthetic_name,
            "per_set": per_set,
            "baseline": {"mode": params.baseline, "rule": rule},
            "bonferroni": bonferroni,
            "gower": dcr.gower,
        },
        charts=(chart,),
        notes=(dcr.equal_size_note(),),
        baseline=holdout_share,
        raw=raw if params.baseline == "holdout" else None,
        baseline_label="the share of synthetic records identical to a holdout record (real people the synthesizer "
        "never saw, as many as the training records compared): matches by chance",
        sample_size=int(dcr.syn_to_training.size),
    )


def _dcr_histogram(dcr: GowerDcr, bins: int = 30) -> dict[str, Any]:
    """Overlaid histograms of the DCR to training and to holdout on shared bins."""
    import numpy as np

    top = float(max(dcr.syn_to_training.max(), dcr.syn_to_holdout.max(), 1e-12))
    edges = np.linspace(0.0, top, bins + 1)

    def counts(dcr_values: np.ndarray) -> list[int]:
        return np.histogram(dcr_values, edges)[0].tolist()

    return {
        "kind": "histogram",
        "title": f"Distance to closest record of {dcr.synthetic_name}",
        "x_label": "Gower distance to the closest real record",
        "series": [
            {"name": "to training", "edges": edges.tolist(), "counts": counts(dcr.syn_to_training)},
            {"name": "to holdout", "edges": edges.tolist(), "counts": counts(dcr.syn_to_holdout)},
        ],
    }


def _roc_chart(roc: tuple[np.ndarray, np.ndarray], name: str, auc: float) -> dict[str, Any]:
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


def _thin(n: int, most: int) -> Sequence[int]:
    """Evenly spaced indices, first and last included."""
    import numpy as np

    if n <= most:
        return np.arange(n)
    return np.unique(np.linspace(0, n - 1, most).round().astype(int))


#: Names this family imports inside the functions that use them, so the registry (and
#: `policycheck validate`) loads without numpy, scipy or numba; still importable from here.
_IMPORTED_WHERE_USED = {
    "SearchJob": ("policycheck.methods.nearest_neighbours", "SearchJob"),
    "closest_records": ("policycheck.methods.nearest_neighbours", "closest_records"),
    "dcr_quantiles": ("policycheck.methods.dcr_share", "dcr_quantiles"),
    "dcr_share_counts": ("policycheck.methods.dcr_share", "dcr_share_counts"),
    "equal_size_subsample": ("policycheck.methods.dcr_share", "equal_size_subsample"),
    "fit_gower": ("policycheck.methods.gower", "fit_gower"),
    "stats": ("policycheck.core.stats", None),
}


__getattr__ = imported_where_used(__name__, _IMPORTED_WHERE_USED)
