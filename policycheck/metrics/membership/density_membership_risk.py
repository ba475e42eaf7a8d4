"""``density_membership_risk``: the no-box density attack on a released set (DOMIAS, van Breugel et al. 2023).

When the synthesizer cannot be re-run, the membership game cannot be
played; the density attack still reads local overfitting off the released
set: each training and holdout record is scored by
``p_synthetic(x) / p_real(x)`` (:mod:`policycheck.methods.density_attack`;
the Gower kernel's width is Scott's rule in Gower units, fitted on the holdout
and recorded in the details), and the rule's value is ``2 AUC - 1`` of that score at telling training from
holdout records, over all of them and over the most isolated tenth (where
overfitting shows first), the worse of the two.

The real density ``p_real`` is over the training and the holdout records
together, each record left out of its own. A holdout-only reference would
hold each holdout record's look-alikes and no training record's: where one
person gives several records (a panel's years), real records of other
people scored 0.33 on it and a Gaussian copula 0.36, beyond the shipped
fail level 0.3 (545 men of Ecdat's Males, split by person). Pooled, members
and non-members alike find their look-alikes in the reference.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from pydantic import Field

from policycheck.core.errors import EvaluationError
from policycheck.metrics.base import AttackerView, EvaluationContext, Knowledge, MetricResult, Need
from policycheck.metrics.combinators import BonferroniNote, Estimate, worst_of_sets
from policycheck.metrics.details import Details, detail
from policycheck.metrics.registry import Convention, Method, Params, metric
from policycheck.release.model import ColumnType, Dataset, Release

if TYPE_CHECKING:  # imported inside the functions that use them, so the registry loads light
    import numpy as np
    import pandas as pd

    from policycheck.methods.density_attack import KernelWidth

REFERENCES = (
    "van Breugel, Sun, Qian, van der Schaar. Membership inference attacks against synthetic data through overfitting "
    "detection (DOMIAS). AISTATS 2023.",
    "Carlini et al. Membership inference attacks from first principles. IEEE S&P 2022.",
)

METHOD = Method(
    definition="2 AUC - 1 of DOMIAS's score p_synthetic(x) / p_real(x) at telling training from holdout "
    "records (p_real over the training and holdout records, each leaving itself out; Gower kernel exp(-p D / h), "
    "h = sqrt(pi/8) x the mean Gower distance between holdout records x Scott's factor n^(-1/(d+4)); kde: DOMIAS's "
    "p_real + 1e-10), over "
    "all records and over the most isolated tenth "
    "(mean Gower distance to the 5 nearest real records), the worse; stratified bootstrap intervals at the Bonferroni "
    "level over the two and the synthetic sets.",
    source="van Breugel et al. 2023 (DOMIAS, eq. 2; the width after its KDE variant's Scott rule); the isolated "
    "tenth after Meeus et al. 2023",
    conventions=(
        Convention(
            topic="reference set",
            peer="DOMIAS 0.0.5 (domias.evaluator.evaluate_performance)",
            theirs="a reference set apart from the scored records; with the reference set equal to the "
            "non-members, each non-member's reference density counts its own kernel",
            ours="the reference is every scored record, training and holdout, each record's reference density "
            "leaving it out (leave-one-out): no record is scored against itself, and a record's look-alikes (the "
            "same person's other records) are in the reference whether it is a member or not",
        ),
        Convention(
            topic="kernel width",
            peer="DOMIAS 0.0.5 (density_estimator='kde')",
            theirs="a gaussian_kde per set, each with Scott's bandwidth from its own size and covariance (the "
            "synthetic density's from the synthetic set)",
            ours="density 'gower': one Gower kernel exp(-p D / h) for both densities, h by Scott's rule from the "
            "holdout alone (sqrt(pi/8) x mean Gower distance x n^(-1/(d+4)), at least 0.001): the population's "
            "spread, not the release's; density 'kde' is theirs",
        ),
    ),
)


class DensityParams(Params):
    columns: list[str] | None = Field(
        None, description="Columns the densities use; all columns of the release when omitted."
    )
    density: Literal["gower", "kde"] = Field(
        "gower",
        description="'gower': a kernel exp(-p D / h) on the Gower distance (mixed data), h by Scott's rule from "
        "the holdout's mean Gower distance; 'kde': scipy's gaussian_kde, DOMIAS's kde estimator (numeric columns "
        "without missing values only).",
    )
    isolated_share: float = Field(
        0.1,
        gt=0,
        le=1,
        description="Share of the records, most isolated first, of the second AUC (0.1: the most isolated decile).",
    )
    confidence: float = Field(0.95, gt=0, lt=1, description="Confidence level of the intervals.")
    bootstrap_resamples: int = Field(200, ge=20, le=10_000, description="Bootstrap resamples behind each interval.")


class IsolatedRecords(Details):
    training: int = detail("Training records", unit="records")
    holdout: int = detail("Holdout records", unit="records")


class DensitySet(Details):
    """One synthetic set: the attack over all records and over the most isolated ones."""

    synthetic: str = detail("Synthetic set")
    value: float = detail("Value", help="2 AUC - 1 of the worse of the two subsets.")
    worst_subset: str = detail("Worse subset", help="all records or most isolated")
    auc: float = detail("AUC over all records", format="share")
    advantage_all: float = detail("2 AUC - 1 over all records")
    interval_all: tuple[float, float] = detail("Its interval")
    auc_isolated: float | None = detail("AUC over the most isolated", format="share")
    advantage_isolated: float | None = detail("2 AUC - 1 over the most isolated")
    interval_isolated: tuple[float, float] = detail("Its interval")
    isolated_records: IsolatedRecords = detail("Most isolated records")
    tpr_at_fpr: dict[str, float] = detail("TPR at low FPR", help="Keyed by the FPR level.")


class DensityDetails(Details):
    density: Literal["gower", "kde"] = detail("Density estimator")
    kernel_width: float | None = detail(
        "Gower kernel width h",
        unit="feature mismatches",
        help="The kernel is exp(-p D / h): h = sqrt(pi/8) x the mean Gower distance between holdout records x "
        "(holdout records)^(-1/(features + 4)), Scott's rule in Gower units, at least 0.001; none for kde (scipy's "
        "Scott bandwidth).",
    )
    mean_holdout_distance: float | None = detail(
        "Mean Gower distance between holdout records", help="The spread the width scales; none for kde."
    )
    per_set: list[DensitySet] = detail("Per synthetic set")
    worst_set: str = detail("Worst synthetic set")
    bonferroni: BonferroniNote = detail("Several subsets and synthetic sets")


@dataclass(frozen=True)
class Prepared:
    """Encoded training, holdout and synthetic records; who is a member; who is in the isolated share."""

    queries: np.ndarray  # training then holdout records, as the density sees them: the reference density's too
    synthetic: list[np.ndarray]
    kinds: np.ndarray
    width: KernelWidth | None  # the Gower kernel's (None for kde)
    self_rows: np.ndarray  # each query's row in the reference: left out of its own density
    members: np.ndarray
    isolated: np.ndarray
    isolated_count: int
    people: np.ndarray | None = None  # each query's person where an id column names people (the bootstrap's unit)


@dataclass(frozen=True)
class DensityMeasure:
    row: DensitySet
    roc: tuple[np.ndarray, np.ndarray]


def _features(params: DensityParams, release: Release) -> list[str]:
    if params.columns:
        wanted = set(params.columns)
        return [c for c in release.columns if c in wanted]
    return release.columns


def check_density_params(
    params: DensityParams, release: Release, attacker: AttackerView
) -> list[tuple[tuple[str | int, ...], str]]:
    """Before running: a holdout; for ``kde``, numeric columns only."""
    problems: list[tuple[tuple[str | int, ...], str]] = []
    if release.holdout is None:
        problems.append(
            (
                ("density",),
                "the density attack needs a holdout set: its records are the non-members",
            )
        )
    if params.density == "kde":
        other = [c for c in _features(params, release) if release.column_types[c] is not ColumnType.NUMERIC]
        if other:
            problems.append(
                (
                    ("density",),
                    f"density 'kde' takes numeric columns only, and {', '.join(other)} "
                    "are not; use density 'gower' or restrict columns",
                )
            )
    return problems


def _two_auc(scores: np.ndarray, members: np.ndarray, subset: np.ndarray) -> tuple[float, float]:
    from policycheck.core import stats

    s, m = scores, members
    whole = stats.roc_auc(s[m], s[~m])
    part = stats.roc_auc(s[subset & m], s[subset & ~m])
    return whole, part


def measure_set(
    ctx: EvaluationContext, params: DensityParams, index: int, level: float, prepared: Prepared
) -> DensityMeasure:
    """One synthetic set: scores, both AUCs with stratified bootstrap intervals, TPR at low FPR."""
    import numpy as np

    from policycheck.core import stats
    from policycheck.methods.density_attack import log_density_ratio
    from policycheck.methods.membership_game.rates import FPR_LEVELS, tpr_at_fpr

    p = prepared
    width = p.width.width if p.width is not None else None
    # The log of DOMIAS's score: the same ranking as the ratio, finite where a narrow kernel's densities are tiny.
    scores = log_density_ratio(p.queries, p.synthetic[index], p.queries, params.density, p.kinds, p.self_rows, width)
    members, isolated = p.members, p.isolated
    whole, part = _two_auc(scores, members, isolated)
    rng = ctx.rng("density_membership_risk", "bootstrap", index)
    member_rows, other_rows = np.flatnonzero(members), np.flatnonzero(~members)
    if p.people is not None:  # a panel: people are drawn, each with all its records
        member_people, other_people = (
            np.unique(p.people[r], return_inverse=True)[1] for r in (member_rows, other_rows)
        )
    resampled = []
    for _ in range(params.bootstrap_resamples):
        if p.people is None:
            rows = np.concatenate([rng.choice(member_rows, member_rows.size), rng.choice(other_rows, other_rows.size)])
        else:
            rows = np.concatenate(
                [
                    np.repeat(member_rows, stats.cluster_draws(member_people, rng)),
                    np.repeat(other_rows, stats.cluster_draws(other_people, rng)),
                ]
            )
        resampled.append(_two_auc(scores[rows], members[rows], isolated[rows]))
    draws = np.array(resampled, dtype=float)
    # Two intervals per set (all records, the most isolated): each at the Bonferroni level over both.
    alpha = 1 - stats.bonferroni(level, 2)

    def interval(column: int) -> tuple[float, float]:
        values = draws[:, column][np.isfinite(draws[:, column])]
        if not values.size:
            return (-1.0, 1.0)
        lo, hi = np.quantile(values, [alpha / 2, 1 - alpha / 2])
        return (2 * float(lo) - 1, 2 * float(hi) - 1)

    fpr, tpr = stats.roc_curve(scores[members], scores[~members])
    values = {"all records": 2 * whole - 1, "most isolated": 2 * part - 1 if np.isfinite(part) else float("nan")}
    worst = max((k for k in values if np.isfinite(values[k])), key=lambda k: values[k])
    row = DensitySet(
        synthetic=ctx.release.synthetic[index].name,
        value=values[worst],
        worst_subset=worst,
        auc=whole,
        advantage_all=2 * whole - 1,
        interval_all=interval(0),
        auc_isolated=part if np.isfinite(part) else None,
        advantage_isolated=values["most isolated"] if np.isfinite(part) else None,
        interval_isolated=interval(1),
        isolated_records=IsolatedRecords(
            training=int((isolated & members).sum()), holdout=int((isolated & ~members).sum())
        ),
        tpr_at_fpr={f"{k:g}": v for k, v in tpr_at_fpr(fpr, tpr, FPR_LEVELS).items()},
    )
    return DensityMeasure(row, (fpr, tpr))


def prepare(ctx: EvaluationContext, params: DensityParams, holdout_set: Dataset) -> Prepared:
    """Encode every set once; rank the real records by isolation (Meeus et al. 2023)."""
    import numpy as np

    from policycheck.methods.density_attack import gower_kernel_width
    from policycheck.methods.gower import fit_gower
    from policycheck.methods.membership_game.targets import vulnerability_scores
    from policycheck.release.people import split_people

    release = ctx.release
    features = _features(params, release)
    frames = [release.original.frame, holdout_set.frame, *(d.frame for d in release.synthetic)]
    enc = fit_gower(frames, release.column_types, release.orders, features)
    train, hold = enc.encode(release.original.frame), enc.encode(holdout_set.frame)
    real = np.vstack([train, hold])
    split = split_people(release.original, holdout_set)
    people = np.concatenate(split) if split is not None else None
    isolation = vulnerability_scores(real, enc.kinds, ctx.executor, people)
    count = max(1, int(np.ceil(params.isolated_share * len(real))))
    isolated = np.zeros(len(real), bool)
    isolated[np.argsort(-isolation, kind="stable")[:count]] = True
    if params.density == "kde":

        def raw(frame: pd.DataFrame) -> np.ndarray:
            values: np.ndarray = frame[features].to_numpy(dtype=float)
            if np.isnan(values).any():
                raise EvaluationError("density 'kde' cannot take missing values; use density 'gower'")
            return values

        queries = np.vstack([raw(release.original.frame), raw(holdout_set.frame)])
        synthetic = [raw(d.frame) for d in release.synthetic]
        width = None
    else:
        queries, synthetic = real, [enc.encode(d.frame) for d in release.synthetic]
        # The population's spread, from the records the synthesizer never saw.
        width = gower_kernel_width(hold, enc.kinds)
    return Prepared(
        queries=queries,
        synthetic=synthetic,
        kinds=enc.kinds,
        width=width,
        self_rows=np.arange(len(queries)),
        members=np.concatenate([np.ones(len(train), bool), np.zeros(len(hold), bool)]),
        people=people,
        isolated=isolated,
        isolated_count=count,
    )


def log_roc_chart(worst: DensitySet, roc: tuple[np.ndarray, np.ndarray], non_members: int) -> dict[str, Any]:
    """The worst set's ROC on log-log axes (Carlini et al. 2022: low FPR is what matters)."""
    fpr, tpr = roc
    floor = 1.0 / (2 * max(non_members, 1))
    return {
        "kind": "line",
        "title": f"Density attack on {worst.synthetic}: ROC on log-log axes (AUC {worst.auc:.3f})",
        "x_label": "false positive rate (holdout records guessed members)",
        "y_label": "true positive rate (training records guessed members)",
        "x_scale": "log",
        "y_scale": "log",
        "x_domain": [floor, 1.0],
        "y_domain": [floor, 1.0],
        "series": [
            {
                "name": "density ratio",
                "x": [max(float(v), floor) for v in fpr],
                "y": [max(float(v), floor) for v in tpr],
            },
            {"name": "chance", "x": [floor, 1.0], "y": [floor, 1.0]},
        ],
    }


@metric(
    name="density_membership_risk",
    method=METHOD,
    family="membership",
    release_level_membership=True,
    params=DensityParams,
    details=DensityDetails,
    knowledge={Knowledge.SYNTHETIC, Knowledge.TARGETS},
    inputs={"original", "holdout", "synthetic"},
    value_range=(-1.0, 1.0),
    column_params=("columns",),
    check=check_density_params,
    meaning="How well the ratio of the synthetic data's density to the real population's density at a record tells "
    "people who were in the training data from people who were not (DOMIAS): 2 AUC - 1, 0 a blind guess, 1 always "
    "right; the worse of all records and the most isolated tenth, where a synthesizer overfits first.",
    remedy="Regenerate with a synthesizer that overfits less (more noise, a differential-privacy budget, fewer "
    "epochs), and check the isolated records the game names; release fewer synthetic records.",
    references=REFERENCES,
)
def density_membership_risk(ctx: EvaluationContext, params: DensityParams, needs: Mapping[Need, Any]) -> MetricResult:
    """2 AUC - 1 of the DOMIAS density ratio at telling training from holdout records (van Breugel et al. 2023)."""
    from policycheck.core import stats

    if ctx.release.holdout is None:
        raise EvaluationError("density_membership_risk needs a holdout set")
    prepared = prepare(ctx, params, ctx.release.holdout)
    sets = worst_of_sets(
        ctx,
        params.confidence,
        lambda i, ds, level: measure_set(ctx, params, i, level, prepared),
        lambda m: m.row.value,
    )
    assert sets.worst is not None  # every set has a finite AUC over all its records
    worst = sets.worst.row
    per_set = [m.row for m in sets.per_set]
    # Each set's worse subset: the interval of its value.
    interval, borrowed = sets.interval_noted(
        lambda m: (
            m.row.synthetic,
            Estimate(
                m.row.value, m.row.interval_all if m.row.worst_subset == "all records" else m.row.interval_isolated
            ),
        )
    )
    alternatives = 2 * len(per_set)
    notes = [
        f"Worst: {worst.worst_subset} of {worst.synthetic}: 2 AUC - 1 = {worst.value:.3f} "
        f"({prepared.isolated_count} most isolated records of {len(prepared.members)} make the isolated "
        "share). No shadow model and no re-run: a synthesizer whose leak does not show as local overfitting "
        "(one it spreads over many records) passes this attack; the membership game tests the synthesizer.",
        *([borrowed] if borrowed else []),
        *(
            [
                f"Gower kernel exp(-p D / h) with h = {w.width:.4g} feature mismatches: sqrt(pi/8) x "
                f"{w.mean_distance:.4g} (the mean Gower distance between holdout records) x {w.scott_factor:.4g} "
                f"(Scott's factor {w.records}^(-1/({w.features} + 4))); Scott's rule in Gower units, one width for "
                "the synthetic and the real density (training and holdout records, each leaving itself out)."
            ]
            if (w := prepared.width) is not None
            else []
        ),
    ]
    return MetricResult(
        value=worst.value,
        interval=interval,
        confidence=params.confidence,
        details=DensityDetails(
            density=params.density,
            kernel_width=prepared.width.width if prepared.width is not None else None,
            mean_holdout_distance=prepared.width.mean_distance if prepared.width is not None else None,
            per_set=per_set,
            worst_set=worst.synthetic,
            bonferroni=BonferroniNote(
                alternatives=alternatives,
                level=stats.bonferroni(params.confidence, alternatives),
                rule=f"each of the {alternatives} intervals (all records and the most isolated, per synthetic set) "
                f"at 1 - (1 - {params.confidence}) / {alternatives} (Bonferroni); the rule's interval runs from the "
                "largest lower end to the largest upper end of each set's worse subset",
            ),
        ),
        charts=(log_roc_chart(worst, sets.worst.roc, int((~prepared.members).sum())),),
        notes=tuple(notes),
        baseline=0.0,
        baseline_label="a blind guess (AUC 0.5)",
        sample_size=len(prepared.members),
    )
